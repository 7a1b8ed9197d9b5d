# tilescope-cli trace, import-kineto and plan/sweep --trace: exit codes and output.
set(TRACE_CLI_WORK ${CMAKE_CURRENT_BINARY_DIR}/trace_cli)
file(MAKE_DIRECTORY ${TRACE_CLI_WORK})
set(TRACE_DATA ${PROJECT_SOURCE_DIR}/tests/data)

# name, expected exit code, then key=value pairs for trace_cli_check.cmake (ARGS uses | between arguments).
function(trace_cli_test name rc)
  cmake_parse_arguments(T "" "OUT;ERR;GENERATE;INPUT;SOURCE" "ARGS" ${ARGN})
  set(defines -DCLI=$<TARGET_FILE:tilescope-cli> -DEXPECT_RC=${rc})
  string(REPLACE ";" "\\;" args "${T_ARGS}")
  list(APPEND defines "-DARGS=${args}")
  foreach(key OUT ERR)
    if(DEFINED T_${key})
      list(APPEND defines "-DEXPECT_${key}=${T_${key}}")
    endif()
  endforeach()
  foreach(key GENERATE INPUT SOURCE)
    if(DEFINED T_${key})
      list(APPEND defines "-D${key}=${T_${key}}")
    endif()
  endforeach()
  add_test(NAME cli.${name} COMMAND ${CMAKE_COMMAND} ${defines} -P ${CMAKE_CURRENT_SOURCE_DIR}/trace_cli_check.cmake)
  set_tests_properties(cli.${name} PROPERTIES LABELS cli)
endfunction()

# Import of real PyTorch traces.
trace_cli_test(import_kineto_alexnet_json 0 ARGS import-kineto ${TRACE_DATA}/hta_alexnet_a100.json.gz --json
               OUT "\"kernels\": 79,.*\"launch_violations\": \\[\\].*\"occupancy_corrections\": \\[.*\"shared_memory\": 67584,.*\"kineto_occupancy_pct\": 0\\.0,.*\"occupancy_pct\": 12\\.5,.*\"count\": 2")
trace_cli_test(import_kineto_bert_text 0 ARGS import-kineto ${TRACE_DATA}/tracelens_bert-small_h100.json.gz
               OUT "kernels whose occupancy Kineto got wrong:.*231,424")
trace_cli_test(import_kineto_no_deviceprops 0 ARGS import-kineto ${TRACE_DATA}/hta_sampled_rank-0_no_deviceprops.json.gz
               OUT "no deviceProperties.*occupancy is unknown")
trace_cli_test(import_kineto_amd 0 ARGS import-kineto ${TRACE_DATA}/hta_mi250_rocm_no_regs.json.gz --json
               OUT "not an NVIDIA GPU \\(warp size 64\\)")
trace_cli_test(import_kineto_out 0 ARGS import-kineto ${TRACE_DATA}/hta_alexnet_a100.json.gz --out ${TRACE_CLI_WORK}/alexnet.tilescope.json
               ERR "wrote trace")
trace_cli_test(trace_summary_native 0 ARGS trace summary ${TRACE_DATA}/trace_golden.tilescope.json
               OUT "runs:    4 \\(2 predicted, 2 measured\\).*sweeps:  1")
trace_cli_test(trace_summary_sample 0 ARGS trace summary ${PROJECT_SOURCE_DIR}/resources/samples/hta_alexnet_a100.json.gz --json
               OUT "\"count\": 79")
trace_cli_test(trace_export_chrome 0 ARGS trace export ${TRACE_DATA}/trace_golden.tilescope.json --chrome -
               OUT "\"traceEvents\".*\"ph\": \"i\".*cudaErrorInvalidConfiguration")
trace_cli_test(trace_export_csv 0 ARGS trace export ${TRACE_DATA}/trace_golden.tilescope.json --csv -
               OUT "^kind,kernel,variant,shape,device,verdict,outcome,grid,block,smem,registers,occupancy_pct,duration_us\n")
trace_cli_test(trace_export_md 0 ARGS trace export ${PROJECT_SOURCE_DIR}/resources/samples/tracelens_bert-small_h100.json.gz --md -
               OUT "## Recorded kernels")
trace_cli_test(trace_export_needs_a_format 2 ARGS trace export ${TRACE_DATA}/trace_golden.tilescope.json
               ERR "needs --chrome, --csv or --md")

# plan --trace and sweep --trace save what they did; the saved sweep reopens.
trace_cli_test(trace_plan_save 0 ARGS plan -k awq_gemm -s M=16 --trace ${TRACE_CLI_WORK}/plan.tilescope.json ERR "wrote trace")
trace_cli_test(trace_sweep_save 0 ARGS sweep -k attention -d t4 --x head_dim=32:256:+32 --y batch=1:8:x2
               --trace ${TRACE_CLI_WORK}/sweep.tilescope.json ERR "wrote trace")
trace_cli_test(trace_sweep_reopen 0 ARGS trace summary ${TRACE_CLI_WORK}/sweep.tilescope.json --json
               OUT "\"kernel\": \"attention\".*\"cells\": 32")
set_tests_properties(cli.trace_sweep_reopen PROPERTIES DEPENDS cli.trace_sweep_save)

# Malformed input: a clear error on stderr and exit 2, never a crash.
trace_cli_test(trace_malformed_empty 2 ARGS trace summary ${TRACE_CLI_WORK}/empty.tilescope.json
               GENERATE empty INPUT ${TRACE_CLI_WORK}/empty.tilescope.json ERR "empty file")
trace_cli_test(trace_malformed_truncated 2 ARGS trace summary ${TRACE_CLI_WORK}/truncated.tilescope.json
               GENERATE truncated INPUT ${TRACE_CLI_WORK}/truncated.tilescope.json SOURCE ${TRACE_DATA}/trace_golden.tilescope.json
               ERR "not valid JSON at byte [0-9]+: .*unexpected end of input")
trace_cli_test(trace_malformed_wrong_types 2 ARGS trace summary ${TRACE_CLI_WORK}/wrong_types.tilescope.json
               GENERATE wrong_types INPUT ${TRACE_CLI_WORK}/wrong_types.tilescope.json SOURCE ${TRACE_DATA}/trace_golden.tilescope.json
               ERR "at /runs: expected an array, got a string")
trace_cli_test(trace_malformed_version2 2 ARGS trace summary ${TRACE_CLI_WORK}/version2.tilescope.json
               GENERATE version2 INPUT ${TRACE_CLI_WORK}/version2.tilescope.json ERR "trace format version 2 is newer")
trace_cli_test(trace_malformed_deep 2 ARGS trace summary ${TRACE_CLI_WORK}/deep.tilescope.json
               GENERATE deep INPUT ${TRACE_CLI_WORK}/deep.tilescope.json ERR "byte [0-9]+: nested deeper than 64")
trace_cli_test(trace_malformed_claimed_cells 2 ARGS trace summary ${TRACE_CLI_WORK}/claimed.tilescope.json
               GENERATE claimed INPUT ${TRACE_CLI_WORK}/claimed.tilescope.json SOURCE ${TRACE_DATA}/trace_golden.tilescope.json
               ERR "expected 4294967296 cells")
trace_cli_test(trace_malformed_garbage 2 ARGS trace summary ${TRACE_DATA}/garbage.bin ERR "byte [0-9]+")
trace_cli_test(trace_malformed_missing 2 ARGS trace summary ${TRACE_CLI_WORK}/no_such_file.json ERR "cannot open")
trace_cli_test(import_kineto_malformed_deep 2 ARGS import-kineto ${TRACE_CLI_WORK}/kineto_deep.json
               GENERATE kineto_deep INPUT ${TRACE_CLI_WORK}/kineto_deep.json ERR "nested deeper than 256")
trace_cli_test(import_kineto_malformed_truncated 2 ARGS import-kineto ${TRACE_CLI_WORK}/kineto_truncated.json
               GENERATE kineto_truncated INPUT ${TRACE_CLI_WORK}/kineto_truncated.json ERR "truncated")
trace_cli_test(import_kineto_malformed_garbage 2 ARGS import-kineto ${TRACE_DATA}/garbage.bin ERR "byte [0-9]+")
