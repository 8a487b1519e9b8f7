// The HTML report's charts as inline SVG: no script, no file of their own,
// nothing fetched. Each bar and line carries a <title>, so hovering over it
// says its figures. Text handed in is plain; it is escaped here.
#pragma once

#include <string>
#include <vector>

namespace syncscope {

struct ChartSeries {
  std::string name;
  std::string color;  // a CSS colour
};

// Bars of equal height split by series: each bar is one step (or a run of
// steps), each part its share of that bar's total.
struct StackedBars {
  std::vector<ChartSeries> series;
  std::vector<std::vector<double>> bars;  // per bar, a value per series
  std::vector<std::string> titles;        // per bar: what hovering shows
  std::string first_label, last_label;    // under the first and the last bar
};
std::string stacked_bars_svg(const StackedBars& chart);
// The series' colours and names, as an HTML list.
std::string legend_html(const std::vector<ChartSeries>& series);

// A small strip of bars, the largest value full height (a finding's count
// per step: periodic sites show their rhythm).
std::string strip_svg(const std::vector<double>& values, const std::string& color, const std::string& title);

// A step before and after a change, as two horizontal bars on one scale
// (what fixing a finding saves, docs/what-if.md): `before`, and `after` as
// an interval (after_low == after_high for one figure), the interval's span
// drawn lighter. Labels are drawn at the bars' right ends.
struct BeforeAfter {
  double before = 0;
  double after_low = 0, after_high = 0;
  std::string before_label, after_label;  // e.g. "as recorded (replayed) 2.43 ms"
  std::string title;                      // what hovering shows
};
std::string before_after_svg(const BeforeAfter& chart);

// A step line (y holds from one x to the next) from x = 0 to x_end, y from 0
// to the largest y; the axes say x_end_label and y_top_label.
struct LinePoint {
  double x = 0, y = 0;
};
std::string step_line_svg(const std::vector<LinePoint>& points, double x_end, const std::string& x_end_label,
                          const std::string& y_top_label, const std::string& title);

}  // namespace syncscope
