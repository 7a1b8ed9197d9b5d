#!/usr/bin/env python3
"""Writes a large PyTorch-profiler trace for the import benchmark by repeating the events of the
real traces in tests/data (see its README) until the file reaches the size asked for.

usage: make_large_kineto.py OUT.json [MEGABYTES] (default 500). Never committed: it goes to the build dir.
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
SOURCES = ["hta_alexnet_a100.json.gz", "tracelens_bert-small_h100.json.gz",
           "hta_sampled_rank-0_no_deviceprops.json.gz", "hta_triton_example_a100.json.gz",
           "hta_mi250_rocm_no_regs.json.gz"]


def main():
    out_path = sys.argv[1]
    target = int(sys.argv[2] if len(sys.argv) > 2 else 500) * 1_000_000
    if os.path.exists(out_path) and os.path.getsize(out_path) >= target:
        return
    events = []
    device_properties = None
    for name in SOURCES:
        with gzip.open(os.path.join(DATA, name), "rt") as f:
            trace = json.load(f)
        if device_properties is None:
            device_properties = trace.get("deviceProperties")
        events.extend(json.dumps(e) for e in trace["traceEvents"])
    block = ",\n".join(events)
    tmp = out_path + ".tmp"
    with open(tmp, "w") as out:
        out.write('{"schemaVersion": 1, "deviceProperties": ' + json.dumps(device_properties) +
                  ',\n"traceEvents": [\n')
        written = 0
        first = True
        while written < target:
            if not first:
                out.write(",\n")
            out.write(block)
            written += len(block) + 2
            first = False
        out.write('\n], "traceName": "tilescope import benchmark"}\n')
    os.replace(tmp, out_path)


if __name__ == "__main__":
    main()
