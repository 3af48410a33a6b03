# cmake -DWORK=<scratch folder> -P find_nccl_check.cmake: FindNCCL finds NCCL laid out as
# NVIDIA's pip wheel lays it out (nccl.h, and libnccl.so.2 with no unversioned link), and
# as a toolkit or system package does (libnccl.so), given NCCL_ROOT.
function(check_layout name library)
  set(root ${WORK}/${name})
  file(REMOVE_RECURSE ${root})
  file(WRITE ${root}/include/nccl.h
       "#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n")
  file(WRITE ${root}/lib/${library} "")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/find_nccl -B ${root}/build
            -DNCCL_ROOT=${root}
    OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${name}: configure failed:\n${output}")
  endif()
  foreach(expected "NCCL_LIBRARY=${root}/lib/${library}" "NCCL_INCLUDE_DIR=${root}/include"
                   "NCCL_VERSION=2.28.9")
    string(FIND "${output}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: expected ${expected} in:\n${output}")
    endif()
  endforeach()
  message(STATUS "${name}: found ${library}")
endfunction()

check_layout(wheel libnccl.so.2)
check_layout(toolkit libnccl.so)
