// embind layer for a trained model (the Model engine object): converts token lists, calls the
// core's language_model, converts back. web/src/api/model.js checks the file and the text.

#include "model.hpp"

#include <memory>
#include <optional>
#include <string>

#include <emscripten/bind.h>

#include "attnlab/language_model.hpp"
#include "ablation.hpp"
#include "convert.hpp"
#include "object_functions.hpp"
#include "trainer_spec.hpp"

namespace attnlab::bindings {

namespace {

// A trained model for reading (attnlab/language_model.hpp): web/src/api/model.js makes one from a
// weights file, sets its weights, and asks it for attention, logits and predictions.
class model_handle {
public:
    val configure(const val& spec) {
        const char* fn = "loadModel";
        return guarded(fn, [&] {
            model_.reset();
            model_ = std::make_unique<language_model>(to_model_config(spec, fn), fn);
            val out = val::object();
            out.set("parameters", layout_js(model_->parameters()));
            return out;
        });
    }

    val set_weights(const val& data) { return weights_into(*model_, data, "loadModel"); }

    val attention(const val& tokens) {
        const char* fn = "Model.attention";
        return guarded(fn, [&] {
            const transformer_config& c = model_->config();
            const std::vector<std::int32_t> t = token_ids(tokens, c, fn);
            tensor p = empty({c.layers, c.heads, t.size(), t.size()});
            model_->attention(t.data(), t.size(), p.data(), fn);
            return to_js(p);
        });
    }

    val logits(const val& tokens) {
        const char* fn = "Model.logits";
        return guarded(fn, [&] {
            const transformer_config& c = model_->config();
            const std::vector<std::int32_t> t = token_ids(tokens, c, fn);
            std::vector<float> out(c.vocab);
            model_->next_logits(t.data(), t.size(), out.data(), fn);
            return val::global("Float32Array").new_(emscripten::typed_memory_view(out.size(), out.data()));
        });
    }

    // { ids, probabilities }: the top next tokens, most probable first.
    val predict(const val& tokens, double top) {
        const char* fn = "Model.predict";
        return guarded(fn, [&] {
            const std::vector<std::int32_t> t = token_ids(tokens, model_->config(), fn);
            const std::vector<next_token> best = model_->predict(t.data(), t.size(), to_size(top, fn, "top"), fn);
            val ids = val::array(), probabilities = val::array();
            for (std::size_t i = 0; i < best.size(); ++i) {
                ids.set(i, best[i].id);
                probabilities.set(i, best[i].probability);
            }
            val out = val::object();
            out.set("ids", ids);
            out.set("probabilities", probabilities);
            return out;
        });
    }

    // [{ layer, head, entropy, previousToken, firstToken, diagonal, prefixMatching, prefixMatchingApart }], null
    // where a score has no row to average over
    val scores(const val& tokens) {
        const char* fn = "Model.headScores";
        return guarded(fn, [&] {
            const transformer_config& c = model_->config();
            const std::vector<std::int32_t> t = token_ids(tokens, c, fn);
            const std::vector<head_scores> all = model_->scores(t.data(), t.size(), fn);
            const auto number = [](const std::optional<double>& x) { return x ? val(*x) : val::null(); };
            val out = val::array();
            for (std::size_t i = 0; i < all.size(); ++i) {
                val h = val::object();
                h.set("layer", static_cast<double>(i / c.heads));
                h.set("head", static_cast<double>(i % c.heads));
                h.set("entropy", number(all[i].entropy));
                h.set("previousToken", number(all[i].previous_token));
                h.set("firstToken", number(all[i].first_token));
                h.set("diagonal", number(all[i].diagonal));
                h.set("prefixMatching", number(all[i].prefix_matching));
                h.set("prefixMatchingApart", number(all[i].prefix_matching_apart));
                out.set(i, h);
            }
            return out;
        });
    }

    // Ablation and circuits (ablation.cpp in this folder)
    val ablate(const val& spec) {
        const char* fn = "Model.ablate";
        return guarded(fn, [&] { return model_ablate(*model_, spec, fn); });
    }
    val composition() {
        const char* fn = "Model.composition";
        return guarded(fn, [&] { return circuits_js(model_->network(fn), fn); });
    }

    void release() { model_.reset(); }

private:
    std::unique_ptr<language_model> model_;
};

}  // namespace

void register_model() {
    object_functions<model_handle>("Model")
        .method<&model_handle::configure>("configure")
        .method<&model_handle::set_weights>("setWeights")
        .method<&model_handle::attention>("attention")
        .method<&model_handle::logits>("logits")
        .method<&model_handle::predict>("predict")
        .method<&model_handle::scores>("headScores")
        .method<&model_handle::ablate>("ablate")
        .method<&model_handle::composition>("composition")
        .method<&model_handle::release>("release");
}

}  // namespace attnlab::bindings
