import os

from conan import ConanFile
from conan.errors import ConanInvalidConfiguration
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy
from conan.tools.layout import basic_layout
from conan.tools.scm import Version

required_conan_version = ">=1.54.0"


class MemfmtConan(ConanFile):
    name = "memfmt"
    version = "0.1.0"
    description = (
        "Header-only C++20 library for tensor memory formats: oneDNN-style format "
        "tags as constexpr types, a runtime memory descriptor and SIMD reorders"
    )
    license = "Apache-2.0"
    topics = ("tensor", "memory-format", "layout", "onednn", "simd", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    no_copy_source = True
    exports_sources = "include/*", "LICENSE", "conan/system_deps.cmake"

    @property
    def _min_cppstd(self):
        return "20"

    @property
    def _module_dir(self):
        # where the package keeps system_deps.cmake, CMakeDeps' build module
        return os.path.join("lib", "cmake", "memfmt")

    @property
    def _compilers_minimum_version(self):
        return {
            "gcc": "12",
            "clang": "14",
        }

    def layout(self):
        basic_layout(self, src_folder=".")

    def requirements(self):
        # Boost: 1.74 or newer, as the CMake package asks. Highway: 1.0 only, from
        # 1.0.3 (Debian 12's); the kernels' per-target guards are those of 1.0.
        self.requires("boost/[>=1.74.0 <2]", transitive_headers=True)
        self.requires("highway/[>=1.0.3 <1.1]", transitive_headers=True, transitive_libs=True)

    def package_id(self):
        self.info.clear()

    def validate(self):
        if self.settings.compiler.get_safe("cppstd"):
            check_min_cppstd(self, self._min_cppstd)
        minimum_version = self._compilers_minimum_version.get(str(self.settings.compiler))
        if minimum_version and Version(self.settings.compiler.version) < minimum_version:
            raise ConanInvalidConfiguration(
                f"{self.ref} requires C++{self._min_cppstd}, which your compiler does not support."
            )

    def package(self):
        copy(self, "LICENSE", src=self.source_folder, dst=os.path.join(self.package_folder, "licenses"))
        copy(
            self,
            "*",
            src=os.path.join(self.source_folder, "include"),
            dst=os.path.join(self.package_folder, "include"),
        )
        copy(
            self,
            "system_deps.cmake",
            src=os.path.join(self.source_folder, "conan"),
            dst=os.path.join(self.package_folder, self._module_dir),
        )

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "memfmt")
        self.cpp_info.set_property("cmake_target_name", "memfmt::memfmt")
        self.cpp_info.set_property("pkg_config_name", "memfmt")
        # Links Boost and Highway where the profile declares them as the system's
        # ([platform_requires]), for which Conan generates no CMake targets.
        self.cpp_info.set_property(
            "cmake_build_modules", [os.path.join(self._module_dir, "system_deps.cmake")]
        )
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
