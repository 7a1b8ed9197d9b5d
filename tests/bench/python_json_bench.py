#!/usr/bin/env python3
"""Times Python's json.load or orjson.loads on a file and prints: wall_seconds cpu_seconds peak_rss_kib.

usage: python_json_bench.py json|orjson FILE. Run in its own process so its peak memory is its own.
"""
import resource
import sys
import time


def main():
    which, path = sys.argv[1], sys.argv[2]
    start = time.perf_counter()
    cpu_start = time.process_time()
    if which == "json":
        import json
        with open(path, "rb") as f:
            document = json.load(f)
    else:
        import orjson
        with open(path, "rb") as f:
            document = orjson.loads(f.read())
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    assert "traceEvents" in document
    print(f"{seconds:.6f} {cpu:.6f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")


if __name__ == "__main__":
    main()
