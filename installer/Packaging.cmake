# Install rules and CPack packages (.deb and .tar.gz). Included from the top-level CMakeLists.txt
# after the apps exist. Layout (Debian FHS): binaries in bin/, the bundled CUPTI in
# lib/tilescope/, samples, models and the icon in share/tilescope/, desktop integration in
# share/applications, share/icons and share/metainfo. See installer/README.md for why CUPTI is bundled.
include(GNUInstallDirs)

set(TILESCOPE_PRIVATE_LIBDIR "${CMAKE_INSTALL_LIBDIR}/tilescope")
if(CMAKE_INSTALL_LIBDIR MATCHES "/")  # GNUInstallDirs' multiarch lib dir: keep the private dir flat
  set(TILESCOPE_PRIVATE_LIBDIR "lib/tilescope")
endif()

# tilescope-cli links libcupti.so.13 dynamically; the package carries that one library and the
# installed binary finds it relative to itself, never under /usr/local/cuda.
set_target_properties(tilescope-cli PROPERTIES INSTALL_RPATH "\$ORIGIN/../${TILESCOPE_PRIVATE_LIBDIR}")
install(TARGETS tilescope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
find_file(TILESCOPE_CUPTI_LIBRARY NAMES libcupti.so.13
          HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64 NO_DEFAULT_PATH)
if(NOT TILESCOPE_CUPTI_LIBRARY)
  message(FATAL_ERROR "libcupti.so.13 not found beside the CUDA toolkit (${CUDAToolkit_LIBRARY_DIR}); packages bundle it")
endif()
install(FILES ${TILESCOPE_CUPTI_LIBRARY} DESTINATION ${TILESCOPE_PRIVATE_LIBDIR})

if(TILESCOPE_GUI)
  install(TARGETS tilescope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/resources/tilescope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/tilescope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/tilescope.png
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/256x256/apps)
  install(FILES ${PROJECT_SOURCE_DIR}/installer/io.github.tilescope.Tilescope.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
endif()
# The Python module for Debian's python3 (python/): the package `tilescope` in its dist-packages.
if(TILESCOPE_PYTHON)
  set(TILESCOPE_PYTHON_INSTALL_DIR "lib/python3/dist-packages/tilescope")
  install(TARGETS _tilescope LIBRARY DESTINATION ${TILESCOPE_PYTHON_INSTALL_DIR})
  install(FILES ${PROJECT_SOURCE_DIR}/python/tilescope/__init__.py DESTINATION ${TILESCOPE_PYTHON_INSTALL_DIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/samples ${PROJECT_SOURCE_DIR}/resources/models
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tilescope)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/tilescope.svg ${PROJECT_SOURCE_DIR}/resources/icons/tilescope.png
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tilescope)

set(CPACK_PACKAGE_NAME "tilescope")
set(CPACK_PACKAGE_VENDOR "Tilescope")
set(CPACK_PACKAGE_CONTACT "Tilescope maintainers <tilescope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "tilescope")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES ON)  # RelWithDebInfo builds carry debug info the package does not need
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/tilescope/tilescope")
# Declared by hand (Debian 12 names): dpkg-shlibdeps cannot resolve the bundled libcupti.so.13,
# which has no shlibs entry. The list is what `readelf -d` shows the binaries need; the package
# test (tests/package) runs both binaries from the unpacked .deb to catch a missing one.
set(_deb_depends "libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1, zlib1g, libsimdjson14, libre2-9")
if(TILESCOPE_GUI)
  string(APPEND _deb_depends ", libqt6core6 (>= 6.2), libqt6gui6 (>= 6.2), libqt6widgets6 (>= 6.2), "
         "libqt6printsupport6 (>= 6.2), libqt6concurrent6 (>= 6.2), libqcustomplot2.1-qt6, qt6-qpa-plugins")
endif()
if(TILESCOPE_PYTHON)
  # The extension is built for this python3 (its ABI tag names the version, e.g. cpython-311).
  string(APPEND _deb_depends ", python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), "
         "python3 (<< ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}.999)")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_deb_depends}")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Profiler for the shapes of GPU kernels
 Tilescope shows which kernel shapes break on which GPU, why, and what to change:
 launch limits, occupancy, shared memory and tiling for AWQ GEMV/GEMM, attention
 and bucketed GEMM kernels, from the device database or a live GPU (CUPTI).")
set(CPACK_PACKAGE_FILE_NAME "tilescope-${PROJECT_VERSION}-Linux-x86_64")  # the .tar.gz; the .deb is named below
set(CPACK_DEBIAN_FILE_NAME "tilescope_${PROJECT_VERSION}_amd64.deb")
include(CPack)
