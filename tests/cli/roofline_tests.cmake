# Issue 14: the model-mode roofline estimate of plan and sweep, and the achieved figures and cliffs
# `trace summary` prints for the runs an H200 measured (tests/data/roofline/README.md). The trace
# summary text carries the git revision, so those cases match patterns (trace_cli_tests.cmake).
tilescope_cli_case(plan_estimate_prefill_h200 0 ARGS plan -k awq_gemm -v prefill -d h200 -s M=33 --estimate)
tilescope_cli_case(plan_estimate_json_h200 0 ARGS plan -k gemm_bucket -d h200 -s M=65 --estimate --json)
tilescope_cli_case(sweep_estimate_prefill_h200 0 ARGS sweep -k awq_gemm -v prefill -d h200 --x M=1,32,33,128,129,193,1000 --estimate)
tilescope_cli_case(sweep_estimate_2d_refused 2 ARGS sweep -k awq_gemm -d h200 --x M=1,2 --y N=4096,8192 --estimate)
tilescope_cli_case(sweep_calibration_needs_run 2 ARGS sweep -k awq_gemm -d h200 --x M=1,2 --calibration c.json)

trace_cli_test(trace_summary_roofline_prefill 0 ARGS trace summary ${TRACE_DATA}/roofline/h200_awq_gemm_prefill_m.jsonl --cliffs
               OUT "awq_gemm / prefill M=32,N=4096,K=4096,group_size=128 on NVIDIA H200: 37\\.18 us, 267\\.9 GB/s, 28\\.88 TFLOP/s, 5\\.6 % of the datasheet roofline \\(bound 2\\.08 us\\).*NVIDIA H200: datasheet: 4,800 GB/s, fp16 989\\.5 TFLOP/s.*along M \\(N=4096, K=4096, group_size=128\\) on NVIDIA H200, 7 cells: 3 cliffs.*M 32 -> 33: 37\\.18 -> 64\\.22 us \\(x1\\.73\\): tile M<=32: 16x128x128, 4 stages -> M<=64: 16x128x128, 3 stages; split-K 2 -> 1.*M 128 -> 129: 66\\.43 -> 106\\.47 us \\(x1\\.60\\): tile M<=128: 32x128x128, 4 stages -> M<=192: 64x128x64, 4 stages")
trace_cli_test(trace_summary_roofline_bucket_json 0 ARGS trace summary ${TRACE_DATA}/roofline/h200_gemm_bucket_oproj_m.jsonl --cliffs --json
               OUT "\"achieved\": \\[.*\"roofline_label\": \"datasheet\".*\"cliffs\": \\[.*\"from\": 64,.*\"to\": 65,.*\"explanation\": \"bucket cell 64 -> 128\".*\"explanation\": \"bucket cell 128 -> 256\".*\"explanation\": \"bucket cell 256 -> 512\"")
trace_cli_test(trace_summary_bad_calibration 2 ARGS trace summary ${TRACE_DATA}/roofline/h200_gemm_bucket_oproj_m.jsonl --calibration ${TRACE_DATA}/device_valid.json
               ERR "tilescope-calibration")
# B200's peaks are unknown (null in devices.json): no estimate is made up. A pattern, not a golden:
# the plan's registers on sm_100 depend on the build's architectures.
trace_cli_test(plan_estimate_unknown_peak 0 ARGS plan -k awq_gemm -d b200 --estimate
               OUT "estimate +unknown \\(b200 has no datasheet bandwidth or peak for this call\\).*datasheet: 8,000 GB/s, fp16 unknown, bf16 unknown")
