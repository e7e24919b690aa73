#include <catch2/catch.hpp>

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
