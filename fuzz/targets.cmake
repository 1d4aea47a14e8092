# The fuzz targets, one list for the libFuzzer build (fuzz/CMakeLists.txt)
# and the replays of tests/CMakeLists.txt, and what a target needs beyond
# the library: the fixtures some load once (by absolute path, so that a
# fuzzer runs from any directory), expat for fuzz_reports's XML check
# (when found; else junit.xml is only checked as UTF-8).
set(GCB_FUZZ_TARGETS
    results criteria size options interop_nccl interop_rccl interop_osu interop_nvbw
    wire nodemap cpuset checks reports topo)

find_package(EXPAT QUIET) # without it, junit.xml is checked less

function(gcb_fuzz_target_needs tgt name)
  target_link_libraries(${tgt} PRIVATE gcbench_core)
  if(name STREQUAL "cpuset")
    target_compile_definitions(
      ${tgt} PRIVATE GCB_FUZZ_TOPO_XML="${PROJECT_SOURCE_DIR}/tests/data/topo/hwloc-2socket-3gpu-ib.xml")
  elseif(name STREQUAL "reports")
    target_compile_definitions(
      ${tgt} PRIVATE GCB_FUZZ_CRITERIA="${PROJECT_SOURCE_DIR}/tests/data/criteria-h200.json")
    if(EXPAT_FOUND)
      target_compile_definitions(${tgt} PRIVATE GCB_FUZZ_HAVE_EXPAT=1)
      target_link_libraries(${tgt} PRIVATE EXPAT::EXPAT)
    endif()
  endif()
endfunction()
