#include "attnlab/adam.hpp"

#include <cmath>

namespace attnlab {

void adam::update(float* params, const float* grads, const std::vector<parameter>& layout, const adam_options& o) {
    ++t_;
    const float b1 = static_cast<float>(o.beta1), b2 = static_cast<float>(o.beta2);
    // beta^t as running products (in double; std::pow would add libm's pow to the module),
    // and the bias corrections folded into the step size and eps
    beta1_t_ *= o.beta1;
    beta2_t_ *= o.beta2;
    const double c1 = 1.0 - beta1_t_;
    const double c2 = 1.0 - beta2_t_;
    const float step = static_cast<float>(o.lr / c1);
    const float root_c2 = static_cast<float>(std::sqrt(c2));
    const float eps = static_cast<float>(o.eps);
    for (const parameter& p : layout) {
        float* w = params + p.offset;
        const float* g = grads + p.offset;
        float* m = m_.data() + p.offset;
        float* v = v_.data() + p.offset;
        const float decay = p.decay ? static_cast<float>(o.lr * o.weight_decay) : 0.0f;
        for (std::size_t i = 0; i < p.size; ++i) {
            m[i] = b1 * m[i] + (1.0f - b1) * g[i];
            v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
            w[i] -= step * m[i] / (std::sqrt(v[i]) / root_c2 + eps) + decay * w[i];
        }
    }
}

}  // namespace attnlab
