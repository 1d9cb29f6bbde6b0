# Included by the memfmt package that Conan's CMakeDeps generates, after the target
# memfmt::memfmt. When Boost or Highway is the system's own ([platform_requires] in
# the profile), Conan generates no target for it, and memfmt::memfmt lacks it: this
# finds the system's package and links it, as memfmt's own CMake package does (the
# program needs Highway's library, libhwy, for the run-time dispatch). With Boost
# and Highway from Conan, their targets exist and this does nothing.

if(NOT TARGET Boost::headers)
  find_package(Boost 1.74 REQUIRED)
  set_property(TARGET memfmt::memfmt APPEND PROPERTY INTERFACE_LINK_LIBRARIES Boost::headers)
endif()

if(NOT TARGET hwy::hwy)
  find_package(hwy CONFIG REQUIRED)
  set_property(TARGET memfmt::memfmt APPEND PROPERTY INTERFACE_LINK_LIBRARIES hwy::hwy)
endif()
