// Arguments of the attention kernels, shared by kernel.cu and the GPU launcher.
#pragma once

namespace tilescope {

struct AttentionParams {
    const void* q;  // [batch, seqlen_q, heads, head_dim]   fp16 or bf16
    const void* k;  // [batch, seqlen_k, heads, head_dim]
    const void* v;  // [batch, seqlen_k, heads, head_dim_v]
    void* o;        // [batch, seqlen_q, heads, head_dim_v]
    float* lse;     // [batch, heads, seqlen_q], natural log of the softmax denominator
    int batch, seqlenQ, seqlenK, heads, headDim, headDimV, causal;
    float softmaxScale;
    // Split-KV (split_kv.cuh); unused by the one-kernel forward. fp32, headDimRounded = the
    // head-dim bucket (flash_api.cpp head_size_rounded).
    float* oAccum;    // [numSplits, batch, heads, seqlen_q, headDimRounded]
    float* lseAccum;  // [numSplits, batch, heads, seqlen_q]
    int numSplits, headDimRounded;
};

}  // namespace tilescope
