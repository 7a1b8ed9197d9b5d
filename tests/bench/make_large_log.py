#!/usr/bin/env python3
"""Generates the long logs of issue 34 (never committed): `diagnose` timing at server-log sizes.

Every line is printed text from a public report, repeated as a serving process repeats it:
  - the error: PyTorch's "RuntimeError: CUDA error: invalid configuration argument"
    (as in tests/data/diagnose_corpus/vllm16566_v0_worker_invalid_config.log, vllm-project/vllm#16566);
  - the INFO line: vLLM 0.6's engine metrics line as vllm-project/vllm#12314 shows it
    ("INFO 01-22 18:27:20 metrics.py:449] Avg prompt throughput: ..."), its clock advanced 5 s a line.

usage: make_large_log.py repeat N OUT        N error lines
       make_large_log.py info N OUT          N INFO lines, then one error line
       make_large_log.py mixed N E OUT       N INFO lines with E error lines spread evenly among them
"""
import sys

ERROR = "RuntimeError: CUDA error: invalid configuration argument"
INFO = ("INFO 01-22 {h:02d}:{m:02d}:{s:02d} metrics.py:449] Avg prompt throughput: 0.0 tokens/s, "
        "Avg generation throughput: 41.7 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, "
        "GPU KV cache usage: 2.0%, CPU KV cache usage: 0.0%.")


def info(i):
    t = 18 * 3600 + 27 * 60 + 20 + 5 * i
    return INFO.format(h=(t // 3600) % 24, m=(t // 60) % 60, s=t % 60)


def main(argv):
    mode = argv[1]
    if mode == "repeat":
        n, out = int(argv[2]), argv[3]
        lines = [ERROR] * n
    elif mode == "info":
        n, out = int(argv[2]), argv[3]
        lines = [info(i) for i in range(n)] + [ERROR]
    elif mode == "mixed":
        n, e, out = int(argv[2]), int(argv[3]), argv[4]
        every = max(1, n // max(1, e))
        lines = []
        for i in range(n):
            lines.append(info(i))
            if (i + 1) % every == 0 and len(lines) - i - 1 < e:
                lines.append(ERROR)
    else:
        sys.exit(__doc__)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv)
