// Human units for the report: durations and byte counts.
#pragma once

#include <cstdint>
#include <string>

namespace syncscope {

std::string format_duration(uint64_t ns);  // "850 ns", "12.3 µs", "4.56 ms", "1.23 s"
// A computed duration (a mean, a prediction): rounded to the nanosecond, below zero as 0.
std::string format_computed_duration(double ns);
std::string format_bytes(uint64_t bytes);  // "512 B", "4.0 KiB", "1.00 MiB", "2.50 GiB"
std::string format_percent(double share);  // 0.378 -> "38%"

}  // namespace syncscope
