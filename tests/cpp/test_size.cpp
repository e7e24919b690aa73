#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "attnlab/errors.hpp"
#include "attnlab/size.hpp"
#include "attnlab/tensor.hpp"

using attnlab::argument_error;
using attnlab::size_arg;
using Catch::Matchers::Message;

namespace {

constexpr double two_32 = 4294967296.0;

}  // namespace

TEST_CASE("size_arg converts whole numbers in range and names anything else", "[size]") {
    CHECK(size_arg(0).to_size("f", "n") == 0);
    CHECK(size_arg(7).to_size("f", "n", {1, 8}) == 7);
    CHECK_THROWS_MATCHES(size_arg(1.5).to_size("f", "n"), argument_error,
                         Message("f: n = 1.5; expected a whole number from 0 to " +
                                 std::string(sizeof(std::size_t) >= 8 ? "9007199254740992" : "4294967295")));
    CHECK_THROWS_MATCHES(size_arg(-1).to_size("f", "n", {1, 8, nullptr, "the number of keys"}), argument_error,
                         Message("f: n = -1; expected a whole number from 1 to 8 (the number of keys)"));
    CHECK_THROWS_MATCHES(size_arg(std::numeric_limits<double>::quiet_NaN()).to_count("f", "w", {1, 9, "nine"}),
                         argument_error, Message("f: w = NaN; expected a whole number from 1 to nine"));
    CHECK_THROWS_WITH(size_arg(std::numeric_limits<double>::infinity()).to_size("f", "n"),
                      Catch::Matchers::StartsWith("f: n = Infinity; expected a whole number from 0 to "));
}

TEST_CASE("size_arg never narrows past what size_t holds: 2^32 + 2 is refused in a 32-bit build, kept whole in a 64-bit one",
          "[size]") {
    for (const double x : {two_32 - 1, two_32, two_32 + 1, two_32 + 2, 9007199254740992.0}) {
        if (x <= static_cast<double>(std::numeric_limits<std::size_t>::max())) {
            CHECK(static_cast<double>(size_arg(x).to_size("f", "n")) == x);
        } else {
            CHECK_THROWS_MATCHES(size_arg(x).to_size("f", "n", {1, attnlab::max_exact_whole, "2^53"}), argument_error,
                                 Message("f: n = " + attnlab::number_string(x) +
                                         "; expected a whole number from 1 to 4294967295"));
        }
        // Counts are 64-bit everywhere: byte figures pass 2^32 in wasm32 too.
        CHECK(static_cast<double>(size_arg(x).to_count("f", "n")) == x);
    }
    CHECK_THROWS_MATCHES(size_arg(9007199254740994.0).to_count("f", "tokens", {1, attnlab::max_exact_whole, "2^53"}),
                         argument_error, Message("f: tokens = 9007199254740994; expected a whole number from 1 to 2^53"));
}

TEST_CASE("to_int guards the narrowing to int", "[size]") {
    CHECK(attnlab::to_int(-2, "softmax", "axis") == -2);
    CHECK_THROWS_MATCHES(attnlab::to_int(two_32, "softmax", "axis"), argument_error,
                         Message("softmax: axis = 4294967296; expected a whole number from -2147483648 to 2147483647"));
}
