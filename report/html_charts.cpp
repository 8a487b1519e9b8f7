#include "report/html_charts.h"

#include <algorithm>
#include <cstdio>

#include "report/html_escape.h"

namespace syncscope {
namespace {

constexpr int kWidth = 960;  // the page's content width
constexpr int kBarsHeight = 180;
constexpr int kAxis = 40;    // left margin: the y axis's labels
constexpr int kBottom = 18;  // under the plot: the x axis's labels
constexpr int kStripWidth = 320, kStripHeight = 22;
constexpr int kLineHeight = 160;
constexpr int kPairWidth = 520, kPairBar = 12, kPairLabel = 230;  // before/after: bar area and its labels

std::string num(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", value);
  return text;
}

std::string text_at(double x, double y, const std::string& text, const char* anchor = "start") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\">" + html_escape(text) +
         "</text>";
}

std::string svg_open(int width, int height, const std::string& label) {
  return "<svg class=\"chart\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
         "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) + "\" role=\"img\" aria-label=\"" +
         html_escape(label) + "\">";
}

}  // namespace

std::string stacked_bars_svg(const StackedBars& chart) {
  const double plot_w = kWidth - kAxis, plot_h = kBarsHeight - kBottom;
  std::string out = svg_open(kWidth, kBarsHeight, "per-step bars");
  // The y axis: 0, 50 and 100% of each bar.
  for (int percent : {0, 50, 100}) {
    const double y = plot_h - plot_h * percent / 100.0;
    out += "<line class=\"grid\" x1=\"" + num(kAxis) + "\" x2=\"" + num(kWidth) + "\" y1=\"" + num(y) + "\" y2=\"" +
           num(y) + "\"/>";
    out += text_at(kAxis - 4, std::max(y + 4, 10.0), std::to_string(percent) + "%", "end");
  }
  const size_t n = chart.bars.size();
  const double width = n ? plot_w / static_cast<double>(n) : plot_w;
  const double gap = width >= 4 ? 1 : 0;
  for (size_t b = 0; b < n; ++b) {
    double total = 0;
    for (double v : chart.bars[b]) total += std::max(v, 0.0);
    out += "<g>";
    if (b < chart.titles.size()) out += "<title>" + html_escape(chart.titles[b]) + "</title>";
    double y = plot_h;
    for (size_t s = 0; s < chart.bars[b].size() && s < chart.series.size() && total > 0; ++s) {
      const double h = plot_h * std::max(chart.bars[b][s], 0.0) / total;
      if (h <= 0) continue;
      y -= h;
      out += "<rect x=\"" + num(kAxis + width * static_cast<double>(b)) + "\" y=\"" + num(y) + "\" width=\"" +
             num(std::max(width - gap, 0.5)) + "\" height=\"" + num(h) + "\" fill=\"" + chart.series[s].color + "\"/>";
    }
    out += "</g>";
  }
  out += text_at(kAxis, kBarsHeight - 4, chart.first_label);
  out += text_at(kWidth, kBarsHeight - 4, chart.last_label, "end");
  return out + "</svg>";
}

std::string legend_html(const std::vector<ChartSeries>& series) {
  std::string out = "<ul class=\"legend\">";
  for (const ChartSeries& s : series) {
    out += "<li><span class=\"swatch\" style=\"background:" + s.color + "\"></span>" + html_escape(s.name) + "</li>";
  }
  return out + "</ul>";
}

std::string strip_svg(const std::vector<double>& values, const std::string& color, const std::string& title) {
  std::string out = svg_open(kStripWidth, kStripHeight, title);
  out += "<title>" + html_escape(title) + "</title>";
  out += "<rect class=\"strip\" x=\"0\" y=\"0\" width=\"" + std::to_string(kStripWidth) + "\" height=\"" +
         std::to_string(kStripHeight) + "\"/>";
  double top = 0;
  for (double v : values) top = std::max(top, v);
  const double width = values.empty() ? 0 : static_cast<double>(kStripWidth) / static_cast<double>(values.size());
  for (size_t i = 0; i < values.size() && top > 0; ++i) {
    if (values[i] <= 0) continue;
    const double h = std::max(kStripHeight * values[i] / top, 2.0);
    out += "<rect x=\"" + num(width * static_cast<double>(i)) + "\" y=\"" + num(kStripHeight - h) + "\" width=\"" +
           num(std::max(width - (width >= 4 ? 1 : 0), 0.5)) + "\" height=\"" + num(h) + "\" fill=\"" + color + "\"/>";
  }
  return out + "</svg>";
}

std::string before_after_svg(const BeforeAfter& chart) {
  const double top = std::max({chart.before, chart.after_low, chart.after_high, 1.0});
  const double plot_w = kPairWidth - kPairLabel;
  const auto w = [&](double v) { return plot_w * std::clamp(v / top, 0.0, 1.0); };
  const int height = 2 * kPairBar + 10;
  std::string out = svg_open(kPairWidth, height, chart.title);
  out += "<title>" + html_escape(chart.title) + "</title>";
  const auto bar = [&](double y, double width, const char* color) {
    return "<rect x=\"0\" y=\"" + num(y) + "\" width=\"" + num(std::max(width, 0.5)) + "\" height=\"" +
           num(kPairBar) + "\" fill=\"" + color + "\"/>";
  };
  out += bar(2, w(chart.before), "#90a4ae");
  out += text_at(w(chart.before) + 6, 2 + kPairBar - 2, chart.before_label);
  const double y = 2 + kPairBar + 6;
  out += bar(y, w(chart.after_low), "#00897b");
  if (chart.after_high > chart.after_low) {
    out += "<rect x=\"" + num(w(chart.after_low)) + "\" y=\"" + num(y) + "\" width=\"" +
           num(std::max(w(chart.after_high) - w(chart.after_low), 0.5)) + "\" height=\"" + num(kPairBar) +
           "\" fill=\"#80cbc4\"/>";
  }
  out += text_at(w(std::max(chart.after_low, chart.after_high)) + 6, y + kPairBar - 2, chart.after_label);
  return out + "</svg>";
}

std::string step_line_svg(const std::vector<LinePoint>& points, double x_end, const std::string& x_end_label,
                          const std::string& y_top_label, const std::string& title) {
  const double plot_w = kWidth - kAxis - 8, plot_h = kLineHeight - kBottom - 8;
  double top = 0;
  for (const LinePoint& p : points) top = std::max(top, p.y);
  std::string out = svg_open(kWidth, kLineHeight, title);
  out += "<title>" + html_escape(title) + "</title>";
  const auto x_of = [&](double x) { return kAxis + (x_end > 0 ? plot_w * std::clamp(x / x_end, 0.0, 1.0) : 0); };
  const auto y_of = [&](double y) { return 8 + plot_h - (top > 0 ? plot_h * y / top : 0); };
  for (double level : {0.0, top}) {
    out += "<line class=\"grid\" x1=\"" + num(kAxis) + "\" x2=\"" + num(kAxis + plot_w) + "\" y1=\"" +
           num(y_of(level)) + "\" y2=\"" + num(y_of(level)) + "\"/>";
  }
  // Inside the plot, under its top line: a label as wide as "722.25 MiB"
  // would run off the narrow axis to the left (it read "25 MiB").
  out += text_at(kAxis + 4, y_of(top) + 14, y_top_label);
  out += text_at(kAxis - 4, y_of(0) + 4, "0", "end");
  std::string path;
  double y = 0;
  path += num(x_of(0)) + "," + num(y_of(0));
  for (const LinePoint& p : points) {
    path += " " + num(x_of(p.x)) + "," + num(y_of(y)) + " " + num(x_of(p.x)) + "," + num(y_of(p.y));
    y = p.y;
  }
  path += " " + num(x_of(x_end)) + "," + num(y_of(y));
  out += "<polyline class=\"line\" points=\"" + path + "\"/>";
  out += text_at(kAxis, kLineHeight - 4, "0 s");
  out += text_at(kAxis + plot_w, kLineHeight - 4, x_end_label, "end");
  return out + "</svg>";
}

}  // namespace syncscope
