#pragma once
/// @file size.hpp
/// @brief size_arg: the one way a size that arrives as a double (a JavaScript number) becomes
/// an integer.
///
/// Sizes, counts and indices reach the engine as doubles. A size_arg keeps the double and has
/// no conversion to an integer other than its checked ones: a whole number, inside the caller's
/// range, and inside what the target type holds on this build. In wasm32 size_t has 32 bits,
/// and a plain static_cast of 2^32 + 2 is undefined (in practice 0 or 2): a cache of "2" heads
/// that JavaScript believes has 4294967298. A function that takes a size from outside takes a
/// size_arg (or converts its double through one) before anything narrows it.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace attnlab {

/// @brief 2^53: past it a double no longer holds every whole number.
inline constexpr double max_exact_whole = 9007199254740992.0;

/// @brief The largest size this build can index: SIZE_MAX where a double holds it exactly
/// (4294967295 in wasm32), else 2^53 (64-bit builds).
inline constexpr double max_index = std::numeric_limits<std::size_t>::digits >= 53
                                        ? max_exact_whole
                                        : static_cast<double>(std::numeric_limits<std::size_t>::max());

/// @brief The whole numbers a size may take, [lo, hi], and how a message writes hi.
struct whole_range {
    double lo = 0;
    double hi = max_exact_whole;
    const char* hi_text = nullptr;  ///< hi as the message writes it ("2^53"); the number when null
    const char* hi_note = nullptr;  ///< what hi stands for, written after it in parentheses
};

/// @brief A size, count or index as it was given (a double), converted only through checks.
class size_arg {
public:
    /// Implicit, so callers pass numbers as they come; nothing converts back implicitly.
    size_arg(double value) : value_(value) {}  // NOLINT(google-explicit-constructor)

    /// @brief The number as given, for messages and comparisons in double.
    double value() const { return value_; }

    /// @brief As size_t: a whole number in [range.lo, range.hi] that this build's size_t holds.
    /// A range past max_index is cut to it (its hi_text then no longer applies).
    /// @throws argument_error "<fn>: <name> = <x>; expected a whole number from <lo> to <hi>[ (<note>)]"
    std::size_t to_size(const std::string& fn, const char* name, const whole_range& range = {0, max_index}) const;

    /// @brief As uint64_t, for counts that may pass 2^32 even in wasm32 (bytes, windows,
    /// seeds): a whole number in [range.lo, range.hi], the range cut at 2^53.
    /// @throws argument_error as to_size
    std::uint64_t to_count(const std::string& fn, const char* name, const whole_range& range = {}) const;

private:
    double value_;
};

/// @brief size_arg(x).to_size(fn, name): a whole number from 0 to max_index. For callers that
/// receive sizes as doubles (JavaScript): it refuses only what cannot be narrowed; the
/// function's own rules still apply after it.
std::size_t to_size(double x, const char* fn, const char* name);

/// @brief `x` as an int, after checking that it is a whole number an int holds; otherwise
/// argument_error "<fn>: <name> = <x>; expected a whole number from <min> to <max>". Like to_size, it only guards
/// the narrowing; the function's own range rule follows.
int to_int(double x, const char* fn, const char* name);

/// @brief Throws argument_error "<fn>: <name> = <x>; expected a whole number from <lo> to
/// <hi_text>" unless x is a whole number in [lo, hi]. A check on a double that stays a double;
/// to narrow it, use size_arg. Without hi_text, hi is printed as a number; a hi_note follows in
/// parentheses.
void require_whole(double x, double lo, double hi, const std::string& fn, const char* name,
                   const char* hi_text = nullptr, const char* hi_note = nullptr);

}  // namespace attnlab
