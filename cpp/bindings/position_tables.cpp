// embind for positions.hpp: lab.positions and lab.rope. web/src/api/lab.js passes the spec the
// reader made as numbers: the kind (0 sinusoidal, 1 rope, 2 alibi), n, d, base, offset, heads,
// and which of the last five were given (bit 0 n ... bit 4 heads); lab.rope's options as
// position_spec reads them (staging.js positionArgs). No option object is read here.

#include "position_tables.hpp"

#include <emscripten/bind.h>

#include "attnlab/errors.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/size.hpp"
#include "convert.hpp"

namespace attnlab::bindings {

position_options position_spec(int layout, bool has_base, double base, double offset, bool alibi) {
    position_options pos;
    if (layout >= 0) {
        rope_options rope;
        rope.layout = layout == 1 ? rope_layout::half : rope_layout::interleaved;
        if (has_base) rope.base = base;
        rope.offset = offset;
        pos.rope = rope;
    }
    pos.alibi = alibi;
    return pos;
}

namespace {

const char* const fn_name = "positions";

val positions_js(int kind, double n, double d, double base, double offset, double heads, int given) {
    return guarded(fn_name, [&] {
        static const std::string fn(fn_name);
        static const char* const kinds[] = {"sinusoidal", "rope", "alibi"};
        static const char* const fields[] = {"n", "d", "base", "offset", "heads"};
        static const char* const what[] = {"{ kind: 'sinusoidal', n, d, base }", "{ kind: 'rope', n, d, base, offset }",
                                           "{ kind: 'alibi', heads } (one slope per head)"};
        // The fields each kind takes, and those it needs (bits as `given`).
        static const int takes[] = {0x7, 0xF, 0x10}, needs[] = {0x3, 0x3, 0x10};
        if (kind < 0 || kind > 2) throw std::logic_error("positions: internal error (kind)");
        for (int f = 0; f < 5; ++f) {
            const int bit = 1 << f;
            const bool extra = (given & bit) && !(takes[kind] & bit), missing = !(given & bit) && (needs[kind] & bit);
            if (extra || missing) {
                fail(error_text(fn) << ": kind '" << kinds[kind] << (extra ? "' does not take " : "' needs ") << fields[f]
                    << "; expected " << what[kind]);
            }
        }
        if (kind == 2) {
            const std::vector<float> s = alibi_slopes(to_size(heads, fn_name, "heads"), fn, "heads");
            tensor t = empty({s.size()});
            std::copy_n(s.data(), s.size(), t.data());
            return to_js(t);
        }
        require_whole(n, 1, max_position, fn, "n", "2^24", "positions");
        const std::size_t rows = static_cast<std::size_t>(n), dims = to_size(d, fn_name, "d");
        const double b = (given & 4) ? base : default_position_base;
        return to_js(kind == 1 ? rope_angles(rows, dims, b, (given & 8) ? offset : 0.0, fn) : sinusoidal_table(rows, dims, b, fn));
    });
}

// lab.rope(X, { layout, base, offset }): `code` is the layout (0 interleaved, 1 half) plus 2 when
// a base was given (web/src/api/lab.js), so the entry shares its signature, and embind's
// invoker, with softmaxSaturation's.
val rope_js(const val& x, double code, double base, double offset) {
    return guarded("rope", [&] {
        const int c = static_cast<int>(code);
        const position_options pos = position_spec(c & 1, (c & 2) != 0, base, offset, false);
        return to_js(rope_rotate(to_tensor(x, "rope", "X"), *pos.rope, "rope"));
    });
}

}  // namespace

void register_positions() {
    emscripten::function("positions", &positions_js);
    emscripten::function("rope", &rope_js);
}

}  // namespace attnlab::bindings
