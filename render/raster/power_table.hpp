// x^alpha for coverages x in [0, 1], the one power of equation 1, without a pow() call: with
// x = m * 2^e (m in [0.5, 1)), x^alpha = m^alpha * 2^(e alpha), the first from a table with
// linear interpolation (error below 1e-8 for every alpha in (0, 1]), the second from a table
// by exponent. A pow() call was an eighth of a ten-million-block report.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace memlog::render {

class PowerTable {
public:
    explicit PowerTable(double alpha)
        : m_alpha(alpha), m_mantissa(kSteps + 2), m_exponent(kExponents), m_exponentUp(kExponentsUp) {
        for (int i = 0; i <= kSteps + 1; ++i)
            m_mantissa[static_cast<size_t>(i)] = std::pow(0.5 + 0.5 * i / kSteps, alpha);
        for (int e = 0; e < kExponents; ++e) m_exponent[static_cast<size_t>(e)] = std::exp2(-e * alpha);
        for (int e = 0; e < kExponentsUp; ++e) m_exponentUp[static_cast<size_t>(e)] = std::exp2(e * alpha);
    }

    // x^alpha for any x >= 0 (areas in ns x bytes, say), to the same 1e-8.
    double ofAny(double x) const {
        if (!(x > 0x1p-1000)) return 0;
        if (x < 1.0) return (*this)(x);
        if (!(x < 0x1p1020)) return std::pow(x, m_alpha);  // and infinity or NaN as pow has them
        const Split split = splitOf(x);
        return split.m_mantissa * m_exponentUp[static_cast<size_t>(split.m_exponent)];
    }

    double operator()(double x) const {
        if (m_alpha == 1.0 || x >= 1.0) return x;
        if (!(x > 0x1p-1000)) return 0;  // nothing worth a pixel's fraction, and not subnormal
        const Split split = splitOf(x);
        return split.m_mantissa * m_exponent[static_cast<size_t>(-split.m_exponent)];
    }

private:
    // x = m * 2^exponent with m in [0.5, 1); m^alpha interpolated from the table.
    struct Split {
        double m_mantissa;
        int m_exponent;
    };
    Split splitOf(double x) const {
        uint64_t bits;
        std::memcpy(&bits, &x, sizeof bits);
        const int exponent = static_cast<int>(bits >> 52) - 1022;
        bits = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1022} << 52);
        double m;
        std::memcpy(&m, &bits, sizeof m);
        const double position = (m - 0.5) * 2 * kSteps;
        const int i = static_cast<int>(position);
        const double t = position - i;
        return {m_mantissa[static_cast<size_t>(i)] * (1 - t) + m_mantissa[static_cast<size_t>(i) + 1] * t, exponent};
    }

    static constexpr int kSteps = 4096, kExponents = 1001, kExponentsUp = 1022;
    double m_alpha;
    std::vector<double> m_mantissa, m_exponent, m_exponentUp;
};

}  // namespace memlog::render
