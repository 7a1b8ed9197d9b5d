#!/usr/bin/env python3
"""The GPU check's bookkeeping (tests/gpu/run.sh), standard library only.

  annotate  one `tilescope-cli run --json` output + what the case expects -> one runs.jsonl line
  ncu       Nsight Compute's launch statistics for one launch per variant vs the plan -> ncu.json
  sanitize  compute-sanitizer (memcheck; racecheck for attention) on one small shape per variant
  summary   runs.jsonl + peers.json (+ ncu.json, sanitize.txt) -> summary.md and summary.json;
            exit 1 when any check failed
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys


# ---------------------------------------------------------------------------------------- annotate
def annotate(a):
    text = open(a.stdout, errors="replace").read()
    try:
        run = json.loads(text)
    except ValueError:
        run = {"kernel": a.kernel, "variant": a.variant, "fatal": True, "stdout": text[-2000:]}
    # gemm_bucket runs in bf16 whatever --dtype says (it applies to attention only).
    dtype = "bf16" if a.kernel == "gemm_bucket" else a.dtype
    run.update({"shape_text": a.shape, "expected_verdict": a.expected, "exit_code": a.exit_code, "dtype": dtype,
                "stderr": open(a.stderr, errors="replace").read()[-2000:] if os.path.exists(a.stderr) else ""})
    print(json.dumps(run))
    return 0


def load_runs(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def case_key(run):
    return (run.get("kernel"), run.get("variant"), run.get("shape_text"), run.get("dtype", "fp16"))


# --------------------------------------------------------------------------------------------- ncu
NCU_METRICS = {
    # ncu raw metric -> how to read the same figure from a run's JSON (plan + occupancy limits)
    "launch__grid_size": lambda r: prod(r["plan"]["launch"]["grid"]),
    "launch__block_size": lambda r: prod(r["plan"]["launch"]["block"]),
    "launch__registers_per_thread": lambda r: r["plan"]["launch"]["registers"],
    "launch__shared_mem_per_block_static": lambda r: r["plan"]["launch"]["static_smem"],
    "launch__shared_mem_per_block_dynamic": lambda r: r["plan"]["launch"]["dynamic_smem"],
    "launch__occupancy_limit_blocks": lambda r: (r.get("occupancy_limits") or {}).get("blocks"),
    "launch__occupancy_limit_registers": lambda r: (r.get("occupancy_limits") or {}).get("registers"),
    "launch__occupancy_limit_shared_mem": lambda r: (r.get("occupancy_limits") or {}).get("shared_memory"),
    "launch__occupancy_limit_warps": lambda r: (r.get("occupancy_limits") or {}).get("warps"),
    "sm__maximum_warps_per_active_cycle_pct": lambda r: (r["plan"].get("occupancy") or {}).get("occupancy_pct"),
    "launch__waves_per_multiprocessor": lambda r: (r["plan"].get("occupancy") or {}).get("waves"),
}


def prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def agrees(metric, ours, theirs, run):
    if theirs is None:
        return False
    active = (run["plan"].get("occupancy") or {}).get("active_blocks_per_sm", 0)
    if ours is None:  # the resource does not limit: NCU reports a limit at least the active blocks
        return metric.startswith("launch__occupancy_limit_") and theirs >= active
    if metric == "launch__occupancy_limit_shared_mem":
        # NCU computes this limit for the shared-memory carveout the driver picked for the launch
        # (launch__shared_mem_config_size); the plan, like cudaOccMaxActiveBlocksPerMultiprocessor,
        # for the largest one. They agree on what occupancy needs: neither binds below the other's
        # active blocks, and where the plan's limit binds, NCU's equals it.
        return theirs == ours or (theirs >= active and ours >= active and (ours > active or theirs == active))
    if metric in ("sm__maximum_warps_per_active_cycle_pct", "launch__waves_per_multiprocessor"):
        return abs(float(ours) - theirs) <= max(0.01 * abs(theirs), 0.01)
    return float(ours) == theirs


def one_per_variant(runs, fits):
    """The smallest launched, passing run of each variant (bytes moved as the size), split-KV apart:
    a whole device session is 15 minutes, and ncu takes seconds per launch."""
    chosen = {}
    for run in runs:
        if run.get("dtype", "fp16") != ("bf16" if run.get("kernel") == "gemm_bucket" else "fp16") or not fits(run):
            continue
        symbol = run.get("symbol") or ""
        key = (run.get("kernel"), run.get("variant"), "splitkv" in symbol)
        size = run.get("plan", {}).get("bytes_moved") or 0
        if symbol and (key not in chosen or size < chosen[key][0]):
            chosen[key] = (size, run)
    return [run for _, run in sorted(chosen.values(), key=lambda x: x[1]["symbol"])]


def launched_ok(run):
    return run.get("launched") and (run.get("launch") or {}).get("code") == 0 and not run.get("fatal")


def run_cli(cli, run, prefix, extra=()):
    command = prefix + [cli, "run", "-k", run["kernel"], "-v", run["variant"], "-s", run["shape_text"], "--repeat", "0",
                        "--no-cupti", "--json"] + list(extra)
    return subprocess.run(command, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def ncu(a):
    runs = load_runs(a.runs)
    report, mismatches = [], 0
    for run in one_per_variant(runs, launched_ok):
        log = os.path.join(a.tmp, "ncu.csv")
        done = run_cli(a.cli, run, ["ncu", "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
                                    "--launch-count", "1", "--metrics", ",".join(NCU_METRICS), "--log-file", log])
        entry = {"kernel": run["kernel"], "variant": run["variant"], "shape": run["shape_text"], "symbol": run["symbol"],
                 "exit_code": done.returncode, "metrics": {}}
        # ncu writes its report (and its "==PROF==" lines) to the log file; should a version print
        # it to stdout instead, it follows the CLI's JSON there. The header is the row naming the kernel.
        text = (open(log, errors="replace").read() if os.path.exists(log) else "") + "\n" + done.stdout
        if not report:  # the first launch's raw report, kept for tests of this parser
            entry["raw"] = text[-4000:]
        rows = [row for row in csv.reader(io.StringIO(text)) if row]
        header_at = next((i for i, row in enumerate(rows) if "Kernel Name" in row), None)
        data = [row for row in rows[header_at + 1:] if row and row[0].strip().isdigit()] if header_at is not None else []
        if not data:
            entry["error"] = ("ncu printed no metrics row: " + text[-600:] + (done.stderr or "")[-400:]).strip()
            mismatches += 1
        else:
            header, values = rows[header_at], data[0]
            entry["profiled"] = values[header.index("Kernel Name")]
            for metric, ours_of in NCU_METRICS.items():
                theirs = number(values[header.index(metric)]) if metric in header else None
                try:
                    ours = ours_of(run)
                except (KeyError, TypeError):
                    ours = None
                ok = agrees(metric, ours, theirs, run)
                entry["metrics"][metric] = {"plan": ours, "ncu": theirs, "match": ok}
                mismatches += not ok
        os.path.exists(log) and os.remove(log)
        report.append(entry)
        print(f"ncu {run['symbol']}: " + ", ".join(f"{m.split('__')[1]} {'=' if v['match'] else '!='}" for m, v in entry["metrics"].items()))
    json.dump({"launches": report, "mismatches": mismatches}, open(a.out, "w"), indent=1)
    return 1 if mismatches else 0


# ---------------------------------------------------------------------------------------- sanitize
def sanitize(a):
    runs = load_runs(a.runs)
    chosen = {}
    for run in runs:  # the smallest passing launch of each variant
        if run.get("dtype", "fp16") == ("bf16" if run.get("kernel") == "gemm_bucket" else "fp16") and launched_ok(run):
            key = (run["kernel"], run["variant"])
            size = run.get("plan", {}).get("bytes_moved") or 0
            if key not in chosen or size < chosen[key][0]:
                chosen[key] = (size, run)
    failures = 0
    with open(a.out, "w") as out:
        for (kernel, variant), (_, run) in sorted(chosen.items()):
            tools = ["memcheck"] + (["racecheck"] if kernel == "attention" else [])
            for tool in tools:
                done = run_cli(a.cli, run, ["compute-sanitizer", "--tool", tool, "--error-exitcode", "9", "--print-limit", "10"])
                verdict = "clean" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
                failures += done.returncode != 0
                out.write(f"== {tool} {kernel}/{variant} {run['shape_text']} ({run.get('symbol')}): {verdict}\n")
                if done.returncode != 0:
                    out.write(done.stdout[-3000:] + done.stderr[-3000:] + "\n")
                print(f"{tool} {kernel}/{variant}: {verdict}")
        out.write(f"{failures} failing sanitizer run(s)\n")
    return 1 if failures else 0


# ----------------------------------------------------------------------------------------- summary
def problems_of(run):
    plan = run.get("plan", {})
    verdict = plan.get("verdict", "?")
    problems = []
    if verdict != run.get("expected_verdict"):
        problems.append(f"verdict {verdict}, case expects {run.get('expected_verdict')}")
    if run.get("fatal"):
        problems.append("fatal: " + (run.get("synchronize") or {}).get("text", run.get("stderr", "")[-300:]))
    if run.get("launched"):
        if not run.get("prediction_held"):
            problems.append(f"predicted {verdict} / {run.get('predicted_error')}, CUDA said {(run.get('launch') or {}).get('name')}")
        if (run.get("launch") or {}).get("code") == 0:
            m = run.get("plan_matches_record")
            if not m:
                problems.append("no CUPTI kernel record")
            else:
                problems += [f"{k} differs from CUPTI" for k, ok in m.items() if not ok]
            c = run.get("check")
            if c and not c.get("passed"):
                problems.append(f"output error {c.get('max_relative_error'):.3g} > {c.get('bound')}")
            if run.get("synchronize", {}).get("code", 0) != 0:
                problems.append(f"synchronize: {run['synchronize'].get('name')}: {run['synchronize'].get('text')}")
    fa = run.get("function_attributes") or {}
    if run.get("symbol") and fa.get("registers") is not None and not fa.get("registers_match_table"):
        problems.append(f"cudaFuncGetAttributes registers {fa.get('registers')} != ptxas table {plan.get('launch', {}).get('registers')}")
    if run.get("symbol") and fa.get("static_smem") is not None and not fa.get("static_smem_matches_plan"):
        problems.append("cudaFuncGetAttributes static smem differs from the plan")
    return problems


def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"


def summary(a):
    runs = load_runs(a.runs)
    peers_doc = json.load(open(a.peers)) if os.path.exists(a.peers) else {}
    roof = peers_doc.get("roofline") or {}
    copy, fp16, bf16 = roof.get("copy_GBps"), roof.get("cublas_fp16_TFLOPs"), roof.get("cublas_bf16_TFLOPs")
    peers = {}
    for p in peers_doc.get("peers", []):
        peers.setdefault((p["kernel"], p["variant"], p["shape_text"], p.get("dtype", "fp16")), []).append(p)
    rows, failed = [], 0
    for run in runs:
        problems = problems_of(run)
        failed += bool(problems)
        plan = run.get("plan", {})
        timing = run.get("timing_us") or {}
        ours = timing.get("median")
        bytes_moved, flops = plan.get("bytes_moved"), plan.get("flops")
        copy_us = bytes_moved / (copy * 1e3) if copy and copy > 0 and bytes_moved else None
        peak = bf16 if run.get("kernel") == "gemm_bucket" or run.get("dtype") == "bf16" else fp16
        compute_us = flops / (peak * 1e6) if peak and peak > 0 and flops else None
        rec = (run.get("records") or [{}])[0]
        row_peers = []
        for p in peers.get(case_key(run), []):
            row_peers.append({"peer": p["peer"], "median_us": p.get("median_us"), "error": p.get("error"),
                              "ours_over_peer": ours / p["median_us"] if ours and p.get("median_us") else None})
        # A stack's dispatch (awq_gemm autoawq / vllm from their threshold, issue 30): our dequantize kernel then cuBLAS,
        # side by side with PyTorch's fp16 GEMM at the same shape plus our dequantize records: within 1.15x.
        dispatch = None
        then = [e for e in plan.get("extra_launches", []) if e.get("library")]
        dequant = sorted(r["end_ns"] - r["start_ns"] for r in run.get("records") or [] if r.get("name") == run.get("symbol"))
        cublas = next((p.get("median_us") for p in peers.get(case_key(run), []) if p["peer"] == "cublas_fp16"), None)
        if then and dequant and cublas and ours:
            dequant_us = dequant[len(dequant) // 2] / 1e3
            dispatch = {"dequantize_us": dequant_us, "cublas_fp16_us": cublas, "ratio": ours / (cublas + dequant_us)}
            if dispatch["ratio"] > 1.15:
                problems.append(f"dequantize + cuBLAS {ours:.1f} us is {dispatch['ratio']:.2f}x (PyTorch cuBLAS fp16 "
                                f"{cublas:.1f} + our dequantize {dequant_us:.1f} us), over 1.15x")
                failed += len(problems) == 1
        rows.append({"kernel": run.get("kernel"), "variant": run.get("variant"), "dtype": run.get("dtype"), "dispatch": dispatch,
                     "shape": run.get("shape_text"), "verdict": plan.get("verdict"), "expected": run.get("expected_verdict"),
                     "cuda": (run.get("launch") or {}).get("name", "not launched"), "symbol": run.get("symbol"),
                     "registers": rec.get("registers_per_thread"), "ours_us": ours, "timing_source": timing.get("source"),
                     "l2_flushed": timing.get("l2_flushed"), "copy_roofline_us": copy_us, "compute_roofline_us": compute_us,
                     "pct_of_copy_roofline": 100 * copy_us / ours if ours and copy_us else None,
                     "pct_of_compute_roofline": 100 * compute_us / ours if ours and compute_us else None,
                     "peers": row_peers, "problems": problems})
    ncu_doc = json.load(open(a.ncu)) if a.ncu and os.path.exists(a.ncu) else None
    if ncu_doc:  # judged again with this version's rules, from the figures both sides recorded
        by_case = {(r.get("kernel"), r.get("variant"), r.get("shape_text"), r.get("symbol")): r for r in runs}
        mismatches = 0
        for e in ncu_doc.get("launches", []):
            run = by_case.get((e.get("kernel"), e.get("variant"), e.get("shape"), e.get("symbol")))
            for metric, v in e.get("metrics", {}).items():
                if run is not None:
                    v["match"] = agrees(metric, v["plan"], v["ncu"], run)
                mismatches += not v["match"]
            mismatches += bool(e.get("error"))
        ncu_doc["mismatches"] = mismatches
    sanitize_text = open(a.sanitize).read() if a.sanitize and os.path.exists(a.sanitize) else None
    ncu_failed = bool(ncu_doc and (ncu_doc.get("mismatches") or ncu_doc.get("error")))
    sanitize_failed = bool(sanitize_text and "FAILED" in sanitize_text)

    md = []
    md.append(f"GPU: {peers_doc.get('device', '?')}; PyTorch {peers_doc.get('torch', '-')}; measured copy bandwidth "
              f"{fmt(copy)} GB/s, cuBLAS fp16 {fmt(fp16)} TFLOP/s, bf16 {fmt(bf16)} TFLOP/s (8192^3, random data).")
    md.append("Times: median CUPTI kernel time of the timed repeats (ours), PyTorch-profiler kernel time (peers), "
              "L2 flushed before every repeat. % roofline = roofline time / measured time.\n")
    header = ["kernel", "variant", "dtype", "shape", "verdict", "CUDA", "regs", "ours us", "peers us (ours/peer)",
              "% copy roofline", "% cuBLAS roofline", "checks"]
    md.append("| " + " | ".join(header) + " |")
    md.append("|" + "---|" * len(header))
    for r in rows:
        peer_text = "; ".join(
            f"{p['peer']} {fmt(p['median_us'])} ({fmt(p['ours_over_peer'], 2)}x)" if p.get("median_us") else f"{p['peer']}: refused"
            for p in r["peers"]) or "-"
        ours_text = fmt(r["ours_us"]) + ("" if r["timing_source"] in (None, "cupti") else f" ({r['timing_source']})")
        cells = [r["kernel"], r["variant"], r["dtype"], r["shape"], r["verdict"], r["cuda"], r["registers"] or "-", ours_text,
                 peer_text, fmt(r["pct_of_copy_roofline"]), fmt(r["pct_of_compute_roofline"]),
                 "ok" if not r["problems"] else "; ".join(r["problems"])]
        md.append("| " + " | ".join(str(c).replace("\n", " ").replace("|", "/") for c in cells) + " |")
    md.append(f"\n{len(rows) - failed} of {len(rows)} runs passed every check")
    if ncu_doc is not None:
        md.append(f"Nsight Compute: {len(ncu_doc.get('launches', []))} launches compared, {ncu_doc.get('mismatches', '?')} mismatching figures")
        for e in ncu_doc.get("launches", []):
            bad = [f"{m} plan {v['plan']} ncu {v['ncu']}" for m, v in e.get("metrics", {}).items() if not v["match"]]
            if bad or e.get("error"):
                md.append(f"- {e['symbol']}: " + ("; ".join(bad) or e.get("error", "")[:300]))
    if sanitize_text is not None:
        md.append("compute-sanitizer: " + (sanitize_text.strip().splitlines() or ["not run"])[-1])
    open(a.md, "w").write("\n".join(md) + "\n")
    json.dump({"roofline": roof, "device": peers_doc.get("device"), "torch": peers_doc.get("torch"), "runs": rows,
               "ncu": ncu_doc, "sanitize_failed": sanitize_failed}, open(a.json, "w"), indent=1)
    return 1 if failed or ncu_failed or sanitize_failed else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("annotate")
    for name in ("stdout", "stderr", "expected", "dtype", "kernel", "variant", "shape"):
        p.add_argument("--" + name.replace("_", "-"), required=True)
    p.add_argument("--exit-code", type=int, required=True)
    for name in ("ncu", "sanitize"):
        p = sub.add_parser(name)
        p.add_argument("--cli", required=True)
        p.add_argument("--runs", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("--tmp", default="/tmp")
    p = sub.add_parser("summary")
    p.add_argument("--runs", required=True)
    p.add_argument("--peers", required=True)
    p.add_argument("--ncu")
    p.add_argument("--sanitize")
    p.add_argument("--md", required=True)
    p.add_argument("--json", required=True)
    a = parser.parse_args(argv)
    return {"annotate": annotate, "ncu": ncu, "sanitize": sanitize, "summary": summary}[a.command](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
