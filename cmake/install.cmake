# `cmake --install`: libstrata, the public headers, the CLI, a CMake package exporting
# strata::strata, and a pkg-config file. The modules are linked into libstrata, so a
# consumer needs only what the public headers use: MPI (workers.h includes mpi.h).
include(CMakePackageConfigHelpers)
set(STRATA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/strata)
set_target_properties(strata_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)  # CUDA and other libraries outside system paths

install(TARGETS strata EXPORT strataTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS strata_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB STRATA_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/strata/*.h)
install(FILES ${STRATA_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/strata)
install(EXPORT strataTargets NAMESPACE strata:: DESTINATION ${STRATA_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/strataConfig.cmake.in
  ${PROJECT_BINARY_DIR}/strataConfig.cmake INSTALL_DESTINATION ${STRATA_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/strataConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/strataConfig.cmake
  ${PROJECT_BINARY_DIR}/strataConfigVersion.cmake DESTINATION ${STRATA_CMAKE_DIR})

# pkg-config: relocatable (prefix from the .pc file's own place), MPI flags spelled out.
list(TRANSFORM MPI_C_INCLUDE_DIRS PREPEND "-I" OUTPUT_VARIABLE STRATA_PC_MPI_CFLAGS)
list(JOIN STRATA_PC_MPI_CFLAGS " " STRATA_PC_MPI_CFLAGS)
list(JOIN MPI_C_LIBRARIES " " STRATA_PC_MPI_LIBS)
configure_file(${PROJECT_SOURCE_DIR}/cmake/strata.pc.in ${PROJECT_BINARY_DIR}/strata.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/strata.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
