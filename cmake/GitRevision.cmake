# The git revision the binaries were built from, for About boxes, traces and reports.
execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} describe --always --dirty --tags
                OUTPUT_VARIABLE TILESCOPE_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT TILESCOPE_GIT_REVISION)
  set(TILESCOPE_GIT_REVISION "unknown")
endif()
