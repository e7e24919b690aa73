#include <catch2/catch.hpp>

#include <cmath>

#include "attnlab/errors.hpp"
#include "attnlab/mask.hpp"

using attnlab::argument_error;
using attnlab::mask_options;
using attnlab::row_masks;
using attnlab::tensor;
using Catch::Matchers::Message;

TEST_CASE("row_masks limits combine causal and valid lengths", "[mask]") {
    mask_options opts;
    opts.causal = true;
    opts.valid_lens = tensor{3.0f, 5.0f};  // one per batch element
    const row_masks masks(opts, {2}, 5, 5, "attention");
    CHECK(masks.limit(0, 0) == 1);
    CHECK(masks.limit(0, 4) == 3);
    CHECK(masks.limit(1, 4) == 5);
    CHECK(masks.mask_row(0, 0) == nullptr);
}

TEST_CASE("valid lengths given per outer axis are shared by every head", "[mask]") {
    mask_options opts;
    opts.valid_lens = tensor{2.0f, 4.0f};  // [batch] for lead [batch, heads]
    const row_masks masks(opts, {2, 3}, 4, 4, "attention");
    for (std::size_t h = 0; h < 3; ++h) {
        CHECK(masks.limit(h, 1) == 2);      // batch 0, head h
        CHECK(masks.limit(3 + h, 1) == 4);  // batch 1, head h
    }
}

TEST_CASE("an explicit mask broadcasts by NumPy rules", "[mask]") {
    mask_options opts;
    opts.mask = tensor{{{1, 0, 1}}, {{0, 1, 1}}};  // [2, 1, 3] -> [2, m=2, 3]
    const row_masks masks(opts, {2}, 2, 3, "attention");
    CHECK(masks.column_stride() == 1);
    CHECK(masks.mask_row(0, 1)[1] == 0.0f);
    CHECK(masks.mask_row(1, 1)[0] == 0.0f);
    CHECK(masks.mask_row(1, 0)[2] == 1.0f);
}

TEST_CASE("masks with the wrong shape or values are rejected by name", "[mask][errors]") {
    mask_options opts;
    opts.mask = tensor{{1, 0}, {1, 1}};
    CHECK_THROWS_MATCHES(row_masks(opts, {}, 2, 3, "attention"), argument_error,
                         Message("attention: mask has shape [2, 2]; expected a shape that broadcasts to [2, 3]"));
    opts.mask = tensor{{1, 0.5f, 1}};
    CHECK_THROWS_MATCHES(row_masks(opts, {}, 2, 3, "attention"), argument_error,
                         Message("attention: mask[0, 1] = 0.5; expected true/false (1 or 0)"));
    mask_options lens;
    lens.valid_lens = tensor{1.5f};
    CHECK_THROWS_MATCHES(row_masks(lens, {1}, 2, 3, "attention"), argument_error,
                         Message("attention: validLens[0] = 1.5; expected an integer in [0, 3] (the number of keys)"));
}

TEST_CASE("a sliding window shows each query the last w keys, itself included", "[mask][window]") {
    mask_options opts;
    opts.window = 2.0;
    const row_masks self(opts, {}, 5, 5, "attention");
    CHECK(self.range(0, 0).begin == 0);
    CHECK(self.range(0, 0).end == 1);
    CHECK(self.range(0, 3).begin == 2);
    CHECK(self.range(0, 3).end == 4);
    // m = 3 queries over n = 5 keys sit at positions 2, 3, 4, as the causal mask aligns them.
    const row_masks cross(opts, {}, 3, 5, "attention");
    CHECK(cross.range(0, 0).begin == 1);
    CHECK(cross.range(0, 0).end == 3);
    CHECK(cross.range(0, 2).begin == 3);
    CHECK(cross.range(0, 2).end == 5);
    // More queries than keys: the first queries sit before every key and see nothing.
    const row_masks early(opts, {}, 4, 2, "attention");
    CHECK(early.range(0, 1).empty());
    CHECK(early.range(0, 2).begin == 0);
    CHECK(early.range(0, 2).end == 1);
}

TEST_CASE("a window combines with valid lengths by AND, and a huge window is the causal mask", "[mask][window]") {
    mask_options opts;
    opts.window = 3.0;
    opts.valid_lens = tensor{4.0f};
    const row_masks masks(opts, {1}, 6, 6, "attention");
    CHECK(masks.range(0, 5).begin == 3);
    CHECK(masks.range(0, 5).end == 4);
    mask_options wide;
    wide.window = 1e15;
    const row_masks huge(wide, {}, 6, 6, "attention");
    CHECK(huge.range(0, 5).begin == 0);
    CHECK(huge.range(0, 5).end == 6);
}

TEST_CASE("a window that is not a whole number from 1 up is rejected by name", "[mask][window][errors]") {
    for (double bad : {0.0, -1.0, 1.5, std::nan("")}) {
        mask_options opts;
        opts.window = bad;
        CHECK_THROWS_WITH(row_masks(opts, {}, 2, 3, "attention"),
                          Catch::Matchers::StartsWith("attention: window = ") &&
                              Catch::Matchers::EndsWith("; expected a whole number from 1 to 2^53 (the number of keys a query sees)"));
    }
}
