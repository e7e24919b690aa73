#include "attnlab/circuits.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "attnlab/errors.hpp"

namespace attnlab {

namespace {

using mat = std::vector<double>;  // row-major
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

// c [n, m] = a [n, k] b [k, m]
__attribute__((noinline)) mat mul(const mat& a, const mat& b, std::size_t n, std::size_t k, std::size_t m) {
    mat c(n * m, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t p = 0; p < k; ++p) {
            const double x = a[i * k + p];
            for (std::size_t j = 0; j < m; ++j) c[i * m + j] += x * b[p * m + j];
        }
    }
    return c;
}

// a^T a for a [n, k]: [k, k]
__attribute__((noinline)) mat gram(const mat& a, std::size_t n, std::size_t k) {
    mat g(k * k, 0.0);
    for (std::size_t r = 0; r < n; ++r) {
        for (std::size_t i = 0; i < k; ++i) {
            for (std::size_t j = 0; j < k; ++j) g[i * k + j] += a[r * k + i] * a[r * k + j];
        }
    }
    return g;
}

double dot(const mat& a, const mat& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

// A block of a row-major float matrix with `stride` columns, as doubles: rows [r0, r0 + n), columns [c0, c0 + m).
__attribute__((noinline)) mat block(const float* w, std::size_t stride, std::size_t r0, std::size_t n, std::size_t c0, std::size_t m) {
    mat out(n * m);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < m; ++j) out[i * m + j] = w[(r0 + i) * stride + c0 + j];
    }
    return out;
}

const float* weight(const transformer& m, const std::string& name) {
    for (const parameter& p : m.parameters()) {
        if (p.name == name) return m.params() + p.offset;
    }
    throw std::logic_error("circuits: internal error (a weight is missing)");
}

// One head's factors, in double: W_QK = Q K^T, W_OV = V O.
struct head_factors {
    mat q, k, v, o;            // [d, dh] x 3, [dh, d]
    mat gq, gk, gv, go;        // Q^T Q, K^T K, V^T V, O O^T: [dh, dh]
    double qk_norm, ov_norm;   // Frobenius norms of W_QK and W_OV
};

// ||V1 O1 P R^T||_F for the earlier head's factors (gv = V1^T V1, o = O1), P [d, dh] and the
// Gram matrix g = R^T R [dh, dh] of the later head: the square root of tr(gv M g M^T), M = O1 P.
double product_norm(const head_factors& a, const mat& p, const mat& g, std::size_t d, std::size_t dh) {
    const mat m = mul(a.o, p, dh, d, dh);
    const mat left = mul(mul(a.gv, m, dh, dh, dh), g, dh, dh, dh);
    return std::sqrt(std::max(0.0, dot(left, m)));
}

double ratio(double x, double y) { return y > 0 ? x / y : not_a_number; }

// A complex number, with only what the QR iteration needs.
struct cx {
    double re, im;
};
cx operator+(cx a, cx b) { return {a.re + b.re, a.im + b.im}; }
cx operator-(cx a, cx b) { return {a.re - b.re, a.im - b.im}; }
cx operator*(cx a, cx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
cx scaled(cx a, double x) { return {a.re * x, a.im * x}; }
cx conj(cx a) { return {a.re, -a.im}; }
double size(cx a) { return std::sqrt(a.re * a.re + a.im * a.im); }
// (u, w) <- (conj(c) u + conj(z) w, c w - z u): a Givens rotation applied to two rows; with
// conj(c), conj(z) it is the rotation's conjugate transpose applied to two columns.
__attribute__((noinline)) void rotate(cx& u, cx& w, cx c, cx z) {
    const cx a = u, b = w;
    u = conj(c) * a + conj(z) * b;
    w = c * b - z * a;
}
// The square root with a non-negative real part.
cx square_root(cx a) {
    const double m = size(a);
    const double re = std::sqrt(std::max(0.0, (m + a.re) / 2)), im = std::sqrt(std::max(0.0, (m - a.re) / 2));
    return {re, a.im < 0 ? -im : im};
}

}  // namespace

std::vector<std::complex<double>> eigenvalues(std::vector<double> a, std::size_t n) {
    // Householder reduction to upper Hessenberg form: the same eigenvalues
    std::vector<double> v(n);
    for (std::size_t k = 0; k + 2 < n; ++k) {
        double norm = 0;
        for (std::size_t i = k + 1; i < n; ++i) norm += a[i * n + k] * a[i * n + k];
        norm = std::sqrt(norm);
        if (norm == 0) continue;
        const double alpha = a[(k + 1) * n + k] > 0 ? -norm : norm;
        double vv = 0;
        for (std::size_t i = k + 1; i < n; ++i) {
            v[i] = a[i * n + k] - (i == k + 1 ? alpha : 0.0);
            vv += v[i] * v[i];
        }
        if (vv == 0) continue;
        // a = (I - 2 v v^T / vv) a (I - 2 v v^T / vv)
        for (std::size_t j = 0; j < n; ++j) {
            double s = 0;
            for (std::size_t i = k + 1; i < n; ++i) s += v[i] * a[i * n + j];
            s *= 2 / vv;
            for (std::size_t i = k + 1; i < n; ++i) a[i * n + j] -= s * v[i];
        }
        for (std::size_t i = 0; i < n; ++i) {
            double s = 0;
            for (std::size_t j = k + 1; j < n; ++j) s += a[i * n + j] * v[j];
            s *= 2 / vv;
            for (std::size_t j = k + 1; j < n; ++j) a[i * n + j] -= s * v[j];
        }
    }
    // Shifted QR on the complex Hessenberg matrix, one Givens rotation per subdiagonal entry,
    // on the active window [lo, hi]; an eigenvalue splits off when a subdiagonal entry is negligible.
    // (Complex arithmetic by hand: std::complex's operators bring C99's NaN-careful
    // multiplication and division, and csqrt, into the wasm.)
    std::vector<cx> h(n * n);
    for (std::size_t i = 0; i < n * n; ++i) h[i] = cx{a[i], 0};
    std::vector<std::complex<double>> out(n, std::complex<double>(not_a_number, not_a_number));
    std::vector<cx> cs(n), sn(n);
    const double eps = std::numeric_limits<double>::epsilon();
    std::size_t hi = n, iterations = 0, since = 0;
    while (hi > 0) {
        const std::size_t t = hi - 1;
        std::size_t lo = t;
        while (lo > 0 && size(h[lo * n + lo - 1]) > eps * (size(h[(lo - 1) * n + lo - 1]) + size(h[lo * n + lo]))) --lo;
        if (lo == t) {
            out[t] = std::complex<double>(h[t * n + t].re, h[t * n + t].im);
            hi = t;
            since = 0;
            continue;
        }
        if (++iterations > 100 * n) break;  // leaves NaN where nothing settled
        // Wilkinson's shift: the eigenvalue of the trailing 2 x 2 block nearer its last entry;
        // now and then an exceptional one, to break a cycle
        const cx p = h[(t - 1) * n + t - 1], q = h[(t - 1) * n + t], r = h[t * n + t - 1], s = h[t * n + t];
        const cx half = scaled(p + s, 0.5), root = square_root(half * half - (p * s - q * r));
        cx mu = size(half + root - s) < size(half - root - s) ? half + root : half - root;
        if (++since % 10 == 0) mu = s + cx{size(r) * 0.75, 0};
        for (std::size_t k = lo; k <= t; ++k) h[k * n + k] = h[k * n + k] - mu;
        for (std::size_t k = lo; k < t; ++k) {
            const cx x = h[k * n + k], y = h[(k + 1) * n + k];
            const double norm = std::sqrt(x.re * x.re + x.im * x.im + y.re * y.re + y.im * y.im);
            const cx c = norm > 0 ? scaled(x, 1 / norm) : cx{1, 0}, z = norm > 0 ? scaled(y, 1 / norm) : cx{0, 0};
            cs[k] = c;
            sn[k] = z;
            for (std::size_t j = k; j <= t; ++j) rotate(h[k * n + j], h[(k + 1) * n + j], c, z);
        }
        for (std::size_t k = lo; k < t; ++k) {
            const cx c = cs[k], z = sn[k];
            for (std::size_t i = lo; i <= std::min(k + 2, t); ++i) rotate(h[i * n + k], h[i * n + k + 1], conj(c), conj(z));
        }
        for (std::size_t k = lo; k <= t; ++k) h[k * n + k] = h[k * n + k] + mu;
    }
    return out;
}

double circuit_work(const transformer_config& c) {
    const double d = double(c.d_model), dh = double(c.d_head()), all = double(c.layers * c.heads);
    // pairs of heads in different layers: all^2 / 2 less those within a layer
    const double pairs = (all * all - double(c.layers) * double(c.heads * c.heads)) / 2;
    return all * (4 * d * dh * dh + dh * d * d + dh * dh * d + 10 * dh * dh * dh)  // Gram matrices, the OV circuit, its eigenvalues
        + pairs * 3 * (dh * dh * d + 2 * dh * dh * dh)                                 // three norms per pair
        + d * d * double(c.vocab);                                                     // W_U W_E
}

circuit_scores circuits(const transformer& m, const std::string& fn) {
    const transformer_config& c = m.config();
    const double work = circuit_work(c);
    if (work > max_circuit_work) {
        fail(error_text(fn) << ": this model's composition and copying scores need about " << std::round(work / 1e6)
            << " million multiply-adds (dModel = " << c.d_model << ", d_head = " << c.d_head() << ", " << c.layers * c.heads
            << " heads, vocab = " << c.vocab << "); expected at most " << max_circuit_work / 1e6
            << " million: a model with a smaller dModel, d_head or vocab");
    }
    const std::size_t d = c.d_model, H = c.heads, dh = c.d_head(), V = c.vocab;
    std::vector<head_factors> heads(c.layers * H);
    for (std::size_t l = 0; l < c.layers; ++l) {
        const float* qkv = weight(m, (error_text("layers.") << l << ".qkv").str());
        const float* out = weight(m, (error_text("layers.") << l << ".out").str());
        for (std::size_t h = 0; h < H; ++h) {
            head_factors& f = heads[l * H + h];
            f.q = block(qkv, 3 * d, 0, d, h * dh, dh);
            f.k = block(qkv, 3 * d, 0, d, d + h * dh, dh);
            f.v = block(qkv, 3 * d, 0, d, 2 * d + h * dh, dh);
            f.o = block(out, d, h * dh, dh, 0, d);
            f.gq = gram(f.q, d, dh);
            f.gk = gram(f.k, d, dh);
            f.gv = gram(f.v, d, dh);
            mat ot(d * dh);  // O^T
            for (std::size_t i = 0; i < dh; ++i) {
                for (std::size_t j = 0; j < d; ++j) ot[j * dh + i] = f.o[i * d + j];
            }
            f.go = gram(ot, d, dh);
            f.qk_norm = std::sqrt(std::max(0.0, dot(f.gq, f.gk)));  // ||Q K^T||^2 = tr(Q^T Q K^T K)
            f.ov_norm = std::sqrt(std::max(0.0, dot(f.gv, f.go)));  // ||V O||^2 = tr(V^T V O O^T)
        }
    }
    circuit_scores r;
    const std::size_t all = heads.size();
    std::size_t pairs = 0;
    for (std::size_t a = 0; a < all; ++a) pairs += all - (a / H + 1) * H;
    r.composition.resize(pairs);
    r.copying.resize(all);
    std::size_t at = 0;
    for (std::size_t a = 0; a < all; ++a) {
        for (std::size_t b = (a / H + 1) * H; b < all; ++b) {
            const head_factors& x = heads[a];
            const head_factors& y = heads[b];
            head_composition& e = r.composition[at++];
            e = head_composition{a / H, a % H, b / H, b % H, 0, 0, 0};
            e.q = ratio(product_norm(x, y.q, y.gk, d, dh), x.ov_norm * y.qk_norm);  // V1 O1 Q2 K2^T
            e.k = ratio(product_norm(x, y.k, y.gq, d, dh), x.ov_norm * y.qk_norm);  // V1 O1 K2 Q2^T
            e.v = ratio(product_norm(x, y.v, y.go, d, dh), x.ov_norm * y.ov_norm);  // V1 O1 V2 O2
        }
    }
    // W_U W_E once ([d, vocab] [vocab, d]), then O W_U W_E V per head
    const mat unembed = block(weight(m, "unembedding"), V, 0, d, 0, V);
    const mat embed = block(weight(m, "tokenEmbedding"), d, 0, V, 0, d);
    const mat ue = mul(unembed, embed, d, V, d);
    for (std::size_t a = 0; a < heads.size(); ++a) {
        const mat small = mul(mul(heads[a].o, ue, dh, d, d), heads[a].v, dh, d, dh);
        head_copying& h = r.copying[a];
        h.layer = a / H;
        h.head = a % H;
        h.eigenvalues = eigenvalues(small, dh);
        double sum = 0, total = 0;
        for (const auto& lambda : h.eigenvalues) {
            sum += lambda.real();  // the imaginary parts of conjugate pairs cancel
            total += std::sqrt(lambda.real() * lambda.real() + lambda.imag() * lambda.imag());
        }
        h.score = ratio(sum, total);
    }
    return r;
}

}  // namespace attnlab
