// embind for positions.hpp: lab.positions reads { kind, n, d, base, offset, heads } (made by
// web/src/api/options.js: kind already one of the names, numbers as numbers) and returns the
// table, the angles or the slopes as a tensor.

#include "position_tables.hpp"

#include <string>

#include <emscripten/bind.h>

#include "attnlab/errors.hpp"
#include "attnlab/positions.hpp"
#include "attnlab/size.hpp"
#include "convert.hpp"

namespace attnlab::bindings {

namespace {

const char* const fn = "positions";

bool given(const val& v) { return !v.isUndefined() && !v.isNull(); }

// The fields kind `kind` takes: the others are refused by name, the needed ones required.
void require_fields(const val& spec, const std::string& kind, const char* const* takes, const char* const* needs,
                    const char* what) {
    static const char* const all[] = {"n", "d", "base", "offset", "heads", nullptr};
    for (const char* const* f = all; *f; ++f) {
        bool allowed = false;
        for (const char* const* t = takes; *t; ++t) allowed = allowed || std::string(*t) == *f;
        if (!allowed && given(spec[*f])) {
            fail(error_text(fn) << ": kind '" << kind << "' does not take " << *f << "; expected " << what);
        }
    }
    for (const char* const* f = needs; *f; ++f) {
        if (!given(spec[*f])) fail(error_text(fn) << ": kind '" << kind << "' needs " << *f << "; expected " << what);
    }
}

val positions_js(const val& spec) {
    return guarded(fn, [&] {
        const std::string kind = spec["kind"].as<std::string>();
        const val base_v = spec["base"], offset_v = spec["offset"];
        const double base = given(base_v) ? base_v.as<double>() : default_position_base;
        if (kind == "alibi") {
            static const char* const takes[] = {"heads", nullptr};
            require_fields(spec, kind, takes, takes, "{ kind: 'alibi', heads } (one slope per head)");
            const std::vector<double> s = alibi_slopes(to_size(spec["heads"].as<double>(), fn, "heads"), fn, "heads");
            tensor t = empty({s.size()});
            for (std::size_t i = 0; i < s.size(); ++i) t.data()[i] = static_cast<float>(s[i]);
            return to_js(t);
        }
        const bool rope = kind == "rope";
        static const char* const sinusoidal_takes[] = {"n", "d", "base", nullptr};
        static const char* const rope_takes[] = {"n", "d", "base", "offset", nullptr};
        static const char* const needs[] = {"n", "d", nullptr};
        require_fields(spec, kind, rope ? rope_takes : sinusoidal_takes, needs,
                       rope ? "{ kind: 'rope', n, d, base, offset }" : "{ kind: 'sinusoidal', n, d, base }");
        const double n = spec["n"].as<double>(), d = spec["d"].as<double>();
        require_whole(n, 1, max_position, fn, "n", "2^24", "positions");
        const std::size_t dims = to_size(d, fn, "d");
        if (rope) {
            const double offset = given(offset_v) ? offset_v.as<double>() : 0.0;
            return to_js(rope_angles(static_cast<std::size_t>(n), dims, base, offset, fn));
        }
        return to_js(sinusoidal_table(static_cast<std::size_t>(n), dims, base, fn));
    });
}

}  // namespace

void register_positions() { emscripten::function("positions", &positions_js); }

}  // namespace attnlab::bindings
