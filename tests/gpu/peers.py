#!/usr/bin/env python3
"""Peers of the bundled kernels, timed in the same GPU check with the machine's PyTorch.

At every `ok` case of cases.txt: attention against scaled_dot_product_attention with the
FLASH_ATTENTION and CUDNN_ATTENTION backends (a refusal is recorded with its message); the AWQ and
bucket GEMMs against F.linear in fp16 and bf16 (cuBLAS) and, for the AWQ families,
aten._weight_int4pack_mm (tinygemm, int4, the case's group size). Peer time = median over
iterations of the kernels one call launched, from the PyTorch profiler's trace (not events), with
L2 evicted before each call as tilescope-cli run --flush-l2 does.

Usage: peers.py --cases cases.txt --roofline '<bandwidth JSON>' --out peers.json
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import warnings

ITERATIONS = 10
WARMUP = 3


def parse_cases(path):
    cases = []
    for line in open(path):
        parts = line.split()
        if len(parts) not in (4, 5) or parts[0].startswith("#"):
            continue
        family, variant, shape_text, expected = parts[:4]
        shape = {k: int(v) for k, v in (item.split("=") for item in shape_text.split(","))}
        dtypes = ["fp16", "bf16"] if family == "attention" else ["bf16"] if family == "gemm_bucket" else ["fp16"]
        if len(parts) == 5:  # a fifth column restricts the case to one dtype
            dtypes = [parts[4]]
        for dtype in dtypes:
            cases.append({"kernel": family, "variant": variant, "shape_text": shape_text, "shape": shape,
                          "expected": expected, "dtype": dtype})
    return cases


class Timer:
    """Kernel time of a callable from the profiler's Chrome trace, L2 evicted before each call."""

    def __init__(self, torch):
        self.torch = torch
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush_buffer = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        self.flush_names = set(self._kernels(lambda: self.flush_buffer.zero_(), iterations=1, flush=False)[0])

    def _trace(self, fn, iterations, flush):
        torch = self.torch
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(iterations):
                if flush:
                    self.flush_buffer.zero_()
                fn()
            torch.cuda.synchronize()
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            path = f.name
        try:
            prof.export_chrome_trace(path)
            events = json.load(open(path)).get("traceEvents", [])
        finally:
            os.remove(path)
        kernels = [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]
        return sorted(kernels, key=lambda e: e["ts"])

    def _kernels(self, fn, iterations, flush):
        return [[e["name"] for e in self._trace(fn, iterations, flush)]]

    def median_us(self, fn):
        for _ in range(WARMUP):
            fn()
        self.torch.cuda.synchronize()
        kernels = self._trace(fn, ITERATIONS, True)
        per_call, names, current = [], set(), None
        for e in kernels:
            if e["name"] in self.flush_names:
                if current is not None:
                    per_call.append(current)
                current = 0.0
            elif current is not None:
                current += float(e["dur"])
                names.add(e["name"])
        if current is not None:
            per_call.append(current)
        per_call = [t for t in per_call if t > 0]
        if not per_call:
            raise RuntimeError("the profiler recorded no kernel for the peer")
        return statistics.median(per_call), sorted(names)


def attention_peers(torch, case, timer):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    s, dtype = case["shape"], torch.float16 if case["dtype"] == "fp16" else torch.bfloat16
    b, sq, sk, h = s["batch"], s["seqlen_q"], s["seqlen_k"], s["heads"]
    d, dv = s["head_dim"], s.get("head_dim_v", s["head_dim"])
    # The bundled kernels' layout, [batch, seqlen, heads, dim], seen by SDPA as [batch, heads, seqlen, dim].
    q = torch.randn(b, sq, h, d, dtype=dtype, device="cuda").transpose(1, 2)
    k = torch.randn(b, sk, h, d, dtype=dtype, device="cuda").transpose(1, 2)
    v = torch.randn(b, sk, h, dv, dtype=dtype, device="cuda").transpose(1, 2)
    causal = bool(s.get("causal", 0))
    out = []
    for name, backend in (("sdpa_flash", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
        def call():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        out.append(measure(name, lambda call=call: call, timer))
    return out


def linear_peers(torch, case, timer):
    import torch.nn.functional as F
    s = case["shape"]
    m, n, k = s["M"], s["N"], s["K"]
    out = []
    dtypes = [("cublas_bf16", torch.bfloat16), ("cublas_fp16", torch.float16)] if case["kernel"] == "gemm_bucket" else \
             [("cublas_fp16", torch.float16), ("cublas_bf16", torch.bfloat16)]
    for name, dtype in dtypes:
        x = torch.randn(m, k, dtype=dtype, device="cuda")
        w = torch.randn(n, k, dtype=dtype, device="cuda")
        out.append(measure(name, lambda x=x, w=w: (lambda: F.linear(x, w)), timer))
    if case["kernel"].startswith("awq"):
        out.append(measure("tinygemm_int4", int4_call(torch, m, n, k, s.get("group_size", 128)), timer))
    return out


def int4_call(torch, m, n, k, group):
    """aten._weight_int4pack_mm (tinygemm): bf16 activations, int4 weights packed by PyTorch itself."""
    def build():
        w = torch.randint(0, 16, (n, k // 2), dtype=torch.uint8, device="cuda")
        packed = torch.ops.aten._convert_weight_to_int4pack(w, 8)
        scales_and_zeros = torch.randn(k // group, n, 2, dtype=torch.bfloat16, device="cuda")
        x = torch.randn(m, k, dtype=torch.bfloat16, device="cuda")
        return lambda: torch.ops.aten._weight_int4pack_mm(x, packed, group, scales_and_zeros)
    return build  # built inside measure(), so a refusal is recorded like any other


def measure(name, build, timer):
    """`build()` makes the inputs and returns the call to time; any exception is the peer's refusal."""
    entry = {"peer": name, "median_us": None, "kernels": [], "error": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn = build()
            fn()  # refusals (unsupported shape, backend) surface here
            entry["median_us"], entry["kernels"] = timer.median_us(fn)
        except Exception as e:  # a refusal is a result: keep its message and SDPA's reasons (warnings)
            first = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
            reasons = [str(w.message).strip().splitlines()[0][:200] for w in caught if "profiler" not in str(w.message).lower()]
            entry["error"] = f"{type(e).__name__}: {first}" + ("" if not reasons else " (" + "; ".join(reasons[:3]) + ")")
    return entry


def torch_roofline(torch):
    """Copy bandwidth and fp16/bf16 matmul rate with PyTorch, when the bundle's probe could not run."""
    result = {}
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    dst.copy_(src)
    start.record()
    for _ in range(10):
        dst.copy_(src)
    stop.record()
    stop.synchronize()
    result["copy_GBps"] = round(2 * src.numel() * 10 / (start.elapsed_time(stop) / 1e3) / 1e9, 1)
    del src, dst
    for key, dtype in (("cublas_fp16_TFLOPs", torch.float16), ("cublas_bf16_TFLOPs", torch.bfloat16)):
        a = torch.randn(8192, 8192, dtype=dtype, device="cuda")
        b = torch.randn(8192, 8192, dtype=dtype, device="cuda")
        a @ b
        start.record()
        for _ in range(10):
            a @ b
        stop.record()
        stop.synchronize()
        result[key] = round(2 * 8192 ** 3 * 10 / (start.elapsed_time(stop) / 1e3) / 1e12, 1)
    result["source"] = "pytorch"
    return result


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--roofline", default="{}")
    parser.add_argument("--out", required=True)
    a = parser.parse_args(argv)
    try:
        roofline = json.loads(a.roofline or "{}")
    except ValueError:
        roofline = {}
    doc = {"roofline": roofline, "peers": []}
    try:
        import torch
    except ImportError as e:
        doc["error"] = f"no PyTorch: {e}"
        json.dump(doc, open(a.out, "w"), indent=1)
        return 1
    doc["torch"] = torch.__version__
    doc["device"] = torch.cuda.get_device_name(0)
    if not roofline.get("copy_GBps"):
        doc["roofline"] = torch_roofline(torch)
    timer = Timer(torch)
    started = time.time()
    for case in parse_cases(a.cases):
        if case["expected"] != "ok":
            continue
        make = attention_peers if case["kernel"] == "attention" else linear_peers
        try:
            entries = make(torch, case, timer)
        except Exception as e:
            entries = [{"peer": "setup", "median_us": None, "kernels": [], "error": f"{type(e).__name__}: {e}"[:300]}]
        for entry in entries:
            entry.update({k: case[k] for k in ("kernel", "variant", "shape_text", "dtype")})
            doc["peers"].append(entry)
            print(f"{case['kernel']}/{case['variant']} {case['shape_text']} {case['dtype']} {entry['peer']}: "
                  f"{entry['median_us'] if entry['median_us'] is not None else entry['error']}", flush=True)
        torch.cuda.empty_cache()
    doc["seconds"] = round(time.time() - started, 1)
    json.dump(doc, open(a.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
