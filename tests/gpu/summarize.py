#!/usr/bin/env python3
"""Summary table of tests/gpu/run.sh's runs.jsonl. Exit 1 when any check failed."""
import json
import sys


def main(runs_path, roofline_path):
    roof = json.load(open(roofline_path))
    copy = roof.get("copy_GBps")
    rows, failed = [], 0
    for line in open(runs_path):
        run = json.loads(line)
        plan = run.get("plan", {})
        verdict = plan.get("verdict", "?")
        problems = []
        if verdict != run.get("expected_verdict"):
            problems.append(f"verdict {verdict}, case expects {run.get('expected_verdict')}")
        if run.get("fatal"):
            problems.append("fatal: " + run.get("synchronize", {}).get("text", run.get("stderr", "")))
        if run.get("launched"):
            if not run.get("prediction_held"):
                problems.append(f"predicted {plan.get('verdict')} / {run.get('predicted_error')}, CUDA said {run.get('launch', {}).get('name')}")
            m = run.get("plan_matches_record")
            if run.get("launch", {}).get("code") == 0:
                if not m:
                    problems.append("no CUPTI kernel record")
                else:
                    problems += [f"{k} differs from CUPTI" for k, ok in m.items() if not ok]
                c = run.get("check")
                if c and not c.get("passed"):
                    problems.append(f"output error {c.get('max_relative_error'):.3g} > {c.get('bound')}")
        fa = run.get("function_attributes") or {}
        if run.get("symbol") and fa.get("registers") is not None and not fa.get("registers_match_table"):
            problems.append(f"cudaFuncGetAttributes registers {fa.get('registers')} != ptxas table {plan.get('launch', {}).get('registers')}")
        if run.get("symbol") and fa.get("static_smem") is not None and not fa.get("static_smem_matches_plan"):
            problems.append("cudaFuncGetAttributes static smem differs from the plan")
        t = run.get("timing_us", {}).get("median")
        bytes_moved, flops = plan.get("bytes_moved"), plan.get("flops")
        # Bytes over the measured copy bandwidth; FLOPs over cuBLAS (fp16 for AWQ/attention fp16, bf16 otherwise).
        roofline = f"{bytes_moved / (copy * 1e3):.1f}" if (copy and copy > 0 and bytes_moved) else "-"
        peak = roof.get("cublas_bf16_TFLOPs" if run.get("kernel") == "gemm_bucket" or run.get("dtype") == "bf16" else "cublas_fp16_TFLOPs")
        compute = f"{flops / (peak * 1e6):.1f}" if (peak and peak > 0 and flops) else "-"
        failed += bool(problems)
        rec = (run.get("records") or [{}])[0]
        rows.append([run.get("kernel"), run.get("variant"), run.get("dtype", ""), json.dumps(run.get("shape")), verdict,
                     run.get("launch", {}).get("name", "not launched"), str(rec.get("registers", "-")),
                     f"{t:.1f}" if t else "-", roofline, compute, "ok" if not problems else "; ".join(problems)])
    header = ["kernel", "variant", "dtype", "shape", "verdict", "CUDA", "regs", "median us", "copy-roofline us", "cuBLAS-roofline us", "checks"]
    print(f"copy bandwidth {copy} GB/s, cuBLAS fp16 {roof.get('cublas_fp16_TFLOPs')} TFLOP/s, bf16 {roof.get('cublas_bf16_TFLOPs')} TFLOP/s\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(x).strip().replace("\n", " ").replace("|", "/") for x in r) + " |")
    print(f"\n{len(rows) - failed} of {len(rows)} runs passed every check")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
