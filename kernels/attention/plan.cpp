#include "kernels/attention/plan.h"

#include <algorithm>
#include <optional>

#include "core/device_spec.h"
#include "core/launch_checks.h"
#include "kernels/builtin_kernels.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

using Tile = AttentionFamily::Tile;

// flash-attention v2.8.3 csrc/flash_attn/flash_api.cpp
constexpr int kMinSmVersion = 80;
constexpr std::int64_t kMaxHeadDim = 256;
constexpr std::int64_t kHeadDimMultiple = 8;
constexpr std::int64_t kElementBytes = 2;  // fp16 / bf16
// flash_fwd_launch_template.h: head_dim 256 takes 128x64/8 only on A100-like smem budgets.
constexpr std::int64_t kHdim256WideTileMinOptin = 131072;
constexpr std::int64_t kHdim256WideTileMaxSmemPerSm = 196608;

// kernel_traits.h tile table per head-dim bucket (no dropout). Symbols name our instantiations.
constexpr Tile kD32{128, 128, 4, "128x128/4", "flash_fwd_d32_m128n128w4"};
constexpr Tile kD64{128, 128, 4, "128x128/4", "flash_fwd_d64_m128n128w4"};
constexpr Tile kD96{128, 64, 4, "128x64/4", "flash_fwd_d96_m128n64w4"};
constexpr Tile kD128{128, 64, 4, "128x64/4", "flash_fwd_d128_m128n64w4"};
constexpr Tile kD128Sm8xNonCausal{128, 32, 4, "128x32/4", "flash_fwd_d128_m128n32w4"};
constexpr Tile kD128Sm8xCausal{64, 64, 4, "64x64/4", "flash_fwd_d128_m64n64w4"};
constexpr Tile kD192{128, 64, 8, "128x64/8", "flash_fwd_d192_m128n64w8"};
constexpr Tile kD256Wide{128, 64, 8, "128x64/8", "flash_fwd_d256_m128n64w8"};
constexpr Tile kD256{64, 64, 4, "64x64/4", "flash_fwd_d256_m64n64w4"};

// sglang kernels/ops/attention/fa4_sm120/flash_fwd.py: candidates in order, 4 warps each (ours).
constexpr std::int64_t kSm120Stages = 1;
constexpr std::int64_t kSm120ExtraBytes = 2048;
constexpr std::int64_t kSm120ShearBytesPerRow = 16;  // (256,256) tiles pad each Q row
constexpr std::int64_t kSm120HeadDimMultiple = 16;
constexpr std::int64_t kSm120SmallHeadDim = 64;  // (128,128) only when max(hd, hdv) <= 64
constexpr std::int64_t kSm120Warps = 4;
constexpr Tile kSm120Regular[] = {{128, 128, kSm120Warps, "(128,128)", "flash_fwd_sm120_m128n128"},
                                  {128, 64, kSm120Warps, "(128,64)", "flash_fwd_sm120_m128n64"},
                                  {64, 64, kSm120Warps, "(64,64)", "flash_fwd_sm120_m64n64"}};
constexpr Tile kSm120Hdim256[] = {{64, 64, kSm120Warps, "(64,64)", "flash_fwd_sm120_m64n64_sheared"},
                                  {64, 48, kSm120Warps, "(64,48)", "flash_fwd_sm120_m64n48_sheared"},
                                  {48, 64, kSm120Warps, "(48,64)", "flash_fwd_sm120_m48n64_sheared"},
                                  {32, 64, kSm120Warps, "(32,64)", "flash_fwd_sm120_m32n64_sheared"}};

std::int64_t headDimBucket(std::int64_t d) {
    for (std::int64_t bucket : {32, 64, 96, 128, 192, 256})
        if (d <= bucket) return bucket;
    return kMaxHeadDim;
}

Tile fa2Tile(std::int64_t bucket, bool causal, const DeviceSpec& device) {
    const bool sm8x = device.computeCapability.major == 8 && device.computeCapability.minor > 0;
    switch (bucket) {
        case 32: return kD32;
        case 64: return kD64;
        case 96: return kD96;
        case 128: return sm8x ? (causal ? kD128Sm8xCausal : kD128Sm8xNonCausal) : kD128;
        case 192: return kD192;
        default:
            return device.smemPerBlockOptin >= kHdim256WideTileMinOptin && device.smemPerSm < kHdim256WideTileMaxSmemPerSm
                       ? kD256Wide
                       : kD256;
    }
}

std::int64_t fa2Smem(const Tile& tile, std::int64_t d) { return (tile.blockM + 2 * tile.blockN) * d * kElementBytes; }

std::int64_t sm120Smem(const Tile& tile, std::int64_t hd, std::int64_t hdv, bool sheared) {
    return tile.blockM * hd * kElementBytes + tile.blockN * hd * kSm120Stages * kElementBytes +
           tile.blockN * hdv * kSm120Stages * kElementBytes + kSm120ExtraBytes +
           (sheared ? kSm120ShearBytesPerRow * tile.blockM : 0);
}

void setTraffic(LaunchPlan& plan, const Shape& s) {
    using P = AttentionFamily::Parameter;
    const double b = static_cast<double>(s[P::Batch]), h = static_cast<double>(s[P::Heads]);
    const double sq = static_cast<double>(s[P::SeqlenQ]), sk = static_cast<double>(s[P::SeqlenK]);
    const double d = static_cast<double>(s[P::HeadDim]), dv = static_cast<double>(s[P::HeadDimV]);
    const double q = b * sq * h * d * kElementBytes;
    const double kv = b * sk * h * (d + dv) * kElementBytes;
    const double o = b * sq * h * dv * kElementBytes;
    const double lse = b * h * sq * 4.0;
    plan.bytesMoved = q + kv + o + lse;
    const double causalFactor = s[P::Causal] ? 0.5 : 1.0;
    plan.flops = 2.0 * b * h * sq * sk * (d + dv) * causalFactor;
    plan.deviceMemoryBytes = clampBytes(plan.bytesMoved);
}

}  // namespace

const std::vector<VariantInfo>& AttentionFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"fa2", "FlashAttention-2 forward: head_dim bucket -> (kBlockM x kBlockN / warps), grid (ceil(sq/kBlockM), batch, heads)",
         "flash-attention v2.8.3 csrc/flash_attn/src/flash_fwd_launch_template.h, kernel_traits.h, flash_api.cpp"},
        {"sm120_tile_search", "FA4-on-SM120 style tile search: the first (tile_m, tile_n) whose shared memory fits the opt-in limit",
         "sglang python/sglang/kernels/ops/attention/fa4_sm120/flash_fwd.py"},
    };
    return list;
}

const ParameterList& AttentionFamily::parameters() const {
    static const ParameterList list{
        {"batch", "sequences in the batch (grid.y)", 0, 1 << 20, 1, AxisScale::Log2, false},
        {"seqlen_q", "query tokens per sequence", 0, 1 << 24, 2048, AxisScale::Log2, false},
        {"seqlen_k", "key/value tokens per sequence", 0, 1 << 24, 2048, AxisScale::Log2, false},
        {"heads", "attention heads (grid.z)", 0, 1 << 20, 32, AxisScale::Log2, false},
        {"head_dim", "query/key head dimension", 1, 1024, 128, AxisScale::Linear, false},
        {"head_dim_v", "value head dimension (FA2 needs it equal to head_dim)", 1, 1024, 128, AxisScale::Linear, false},
        {"causal", "1 for a causal mask", 0, 1, 0, AxisScale::Linear, true},
    };
    return list;
}

std::vector<std::string_view> AttentionFamily::kernelSymbols() const {
    std::vector<std::string_view> symbols;
    for (const Tile& t : {kD32, kD64, kD96, kD128, kD128Sm8xNonCausal, kD128Sm8xCausal, kD192, kD256Wide, kD256})
        symbols.push_back(t.symbol);
    for (const Tile& t : kSm120Regular) symbols.push_back(t.symbol);
    for (const Tile& t : kSm120Hdim256) symbols.push_back(t.symbol);
    return symbols;
}

LaunchPlan AttentionFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan;
    plan.family = name();
    plan.variant = variants()[static_cast<std::size_t>(variant)].name;
    if (detail == PlanDetail::Full) plan.deviceId = device.id;
    plan.shape = shape;
    const bool full = detail == PlanDetail::Full;
    const std::int64_t hd = shape[HeadDim], hdv = shape[HeadDimV];
    const bool causal = shape[Causal] != 0;

    // Both variants use Ampere mma instructions.
    if (device.computeCapability.smVersion() < kMinSmVersion) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", kMinSmVersion, device.computeCapability.smVersion()},
                 -1, detail, "FlashAttention only supports Ampere GPUs or newer.");
        if (full) plan.alternative = "run attention through PyTorch SDPA (math or memory-efficient backend) on this GPU";
        return plan;
    }

    std::optional<Tile> tile;
    std::int64_t smem = 0;
    if (variant == Fa2) {
        if (hd > kMaxHeadDim) {
            failPlan(plan, Verdict::UnsupportedShape, {"head_dim", kMaxHeadDim, hd}, HeadDim, detail,
                     "FlashAttention forward only supports head dimension at most 256");
            if (full) plan.alternative = "route head_dim > 256 to another backend (e.g. sm120_tile_search, or PyTorch SDPA)";
            return plan;
        }
        if (hd % kHeadDimMultiple != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"head_dim % 8", kHeadDimMultiple, hd}, HeadDim, detail,
                     "query, key, value, and out_ must have a head_size that is a multiple of 8");
            return plan;
        }
        if (hdv != hd) {  // Tilescope's own check: FA2's forward has one head size for Q, K and V.
            failPlan(plan, Verdict::UnsupportedShape, {"head_dim_v", hd, hdv}, HeadDimV, detail,
                     full ? "FlashAttention-2 forward needs head_dim_v == head_dim (got " + str(hd) + " and " + str(hdv) + ")"
                          : std::string());
            if (full) plan.alternative = "use sm120_tile_search, which takes different Q/K and V head dimensions";
            return plan;
        }
        const std::int64_t bucket = headDimBucket(hd);
        const Tile chosen = fa2Tile(bucket, causal, device);
        tile = chosen;
        smem = fa2Smem(chosen, bucket);
        plan.tileIndex = 0;
        if (full) plan.candidates.push_back({chosen.name, smem, smem <= device.smemPerBlockOptin});
        if (full && (bucket == 128 || bucket == 256)) {
            // The alternative tile of this bucket, for the Shared memory page.
            const Tile other = bucket == 256 ? (chosen.symbol == kD256.symbol ? kD256Wide : kD256) : kD128;
            if (other.symbol != chosen.symbol) {
                const std::int64_t otherSmem = fa2Smem(other, bucket);
                plan.candidates.push_back({other.name, otherSmem, otherSmem <= device.smemPerBlockOptin});
            }
        }
    } else {
        const std::int64_t hdr = roundUp(hd, kSm120HeadDimMultiple);
        const std::int64_t hdvr = roundUp(hdv, kSm120HeadDimMultiple);
        const bool hdim256 = hdr == 256 && hdvr == 256;
        const Tile* first = hdim256 ? std::begin(kSm120Hdim256) : std::begin(kSm120Regular);
        const Tile* last = hdim256 ? std::end(kSm120Hdim256) : std::end(kSm120Regular);
        if (!hdim256 && std::max(hdr, hdvr) > kSm120SmallHeadDim) ++first;  // (128,128) only for small heads
        std::int64_t smallest = 0;
        for (const Tile* t = first; t != last; ++t) {
            const std::int64_t bytes = sm120Smem(*t, hdr, hdvr, hdim256);
            const bool fits = bytes <= device.smemPerBlockOptin;
            smallest = t == first ? bytes : std::min(smallest, bytes);
            if (full) plan.candidates.push_back({t->name, bytes, fits});
            if (fits && !tile) {
                tile = *t;
                smem = bytes;
                plan.tileIndex = static_cast<int>(t - first);
                if (!full) break;
            }
        }
        if (!tile) {
            failPlan(plan, Verdict::NoTileFits, {"smem_per_block_optin", device.smemPerBlockOptin, smallest},
                     HeadDim, detail,
                     full ? "(head_dim, head_dim_v)=(" + str(hd) + ", " + str(hdv) + ") exceeds SM" +
                                str(device.computeCapability.smVersion()) + " shared-memory capacity (" +
                                str(device.smemPerBlockOptin) + " bytes)"
                          : std::string());
            if (full) plan.alternative = "route this head_dim to another backend, or use a GPU with a larger opt-in shared-memory limit";
            return plan;
        }
    }

    plan.tile = tile->name;
    plan.kernelSymbol = tile->symbol;
    plan.dynamicSmem = smem;
    plan.optsIntoLargeSmem = smem > device.smemPerBlock;
    plan.smemParameter = HeadDim;
    plan.grid = {ceilDiv(shape[SeqlenQ], tile->blockM), shape[Batch], shape[Heads]};
    plan.gridParameter = {SeqlenQ, Batch, Heads};
    plan.block = {tile->warps * 32, 1, 1};
    const std::int64_t paddedQ = roundUp(shape[SeqlenQ], tile->blockM);
    plan.paddingWaste = paddedQ > 0 ? static_cast<double>(paddedQ - shape[SeqlenQ]) / static_cast<double>(paddedQ) : 0.0;
    setTraffic(plan, shape);
    plan.memoryParameter = Batch;
    finishLaunch(plan, device, compiledKernelResources(), detail);
    return plan;
}

}  // namespace tilescope
