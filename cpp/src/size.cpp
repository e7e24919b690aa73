#include "attnlab/size.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/errors.hpp"

namespace attnlab {

namespace {

// The one check every conversion makes before it narrows: whole, and inside [lo, hi].
double checked_whole(double x, const std::string& fn, const char* name, const whole_range& range, double cap) {
    const bool cut = range.hi > cap;
    require_whole(x, range.lo, cut ? cap : range.hi, fn, name, cut ? nullptr : range.hi_text, range.hi_note);
    return x;
}

}  // namespace

std::size_t size_arg::to_size(const std::string& fn, const char* name, const whole_range& range) const {
    return static_cast<std::size_t>(checked_whole(value_, fn, name, range, max_index));
}

std::uint64_t size_arg::to_count(const std::string& fn, const char* name, const whole_range& range) const {
    return static_cast<std::uint64_t>(checked_whole(value_, fn, name, range, max_exact_whole));
}

std::size_t to_size(double x, const char* fn, const char* name) { return size_arg(x).to_size(fn, name); }

int to_int(double x, const char* fn, const char* name) {
    constexpr double lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
    require_whole(x, lo, hi, fn, name);
    return static_cast<int>(x);
}

void require_whole(double x, double lo, double hi, const std::string& fn, const char* name, const char* hi_text,
                   const char* hi_note) {
    if (!(std::floor(x) == x && x >= lo && x <= hi)) {
        error_text text(fn);
        text << ": " << name << " = " << x << "; expected a whole number from " << lo << " to ";
        if (hi_text) text << hi_text;
        else text << hi;
        if (hi_note) text << " (" << hi_note << ")";
        fail(text);
    }
}

}  // namespace attnlab
