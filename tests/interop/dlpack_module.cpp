// memfmt_dlpack_py: a Python module (pybind11) over memfmt/interop/dlpack.hpp, for
// dlpack_numpy_test.py, in which NumPy is the consumer and the producer:
//
//   Tensor(dims, dtype, tag) / Tensor.strided(dims, dtype, strides): a memfmt memory
//     (owned), .view(sizes, offsets) a submemory of it, .fill(seed) writes the pattern
//     below, .bits(index) reads an element's bits; __dlpack__ / __dlpack_device__ export
//     it (blocked layouts unfolded) for numpy.from_dlpack, .dlpack(logical) returns the
//     capsule of either export;
//   import_capsule(capsule) / from_dlpack(obj): a DLPack capsule (a NumPy array's
//     __dlpack__()) as an Imported memory: .bits(index), .dims, .strides, .offset0, ...;
//     an Imported exports again (__dlpack__), sharing the import;
//   fake_capsule(...), fake_deleted(): a producer's tensor of any device, type, strides and
//     byte offset (over its own buffer or a Python buffer `base`), and how often its deleter
//     ran; live_exports(): memfmt's exports whose deleter has not run.
//
// The pattern: element number i (row-major over the logical dims) of a tensor filled with
// seed s holds, with k = i + s, for the floating types NaN, inf, -inf, -0 (k % 7 == 3, in
// turn) or ((13 k + 5) % 101 - 50) / 4, for s32 the bits (2654435761 k + 7) mod 2^32, for
// s8 and u8 the bits (37 k + 11) mod 256. The test computes it on its own, with NumPy.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "memfmt/interop/dlpack.hpp"

#include "dlpack_pattern.hpp"

namespace py = pybind11;
using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::memory;

namespace {

using memfmt_test::dlpack::bits_at;
using memfmt_test::dlpack::fill;
using memfmt_test::dlpack::pattern;

data_type parse_type(const std::string& name) {
  for (data_type dt :
       {data_type::f32, data_type::f16, data_type::bf16, data_type::s32, data_type::s8, data_type::u8, data_type::f64})
    if (memfmt::to_string(dt) == name) return dt;
  throw py::value_error("unknown data type '" + name + "' (f32, f16, bf16, s32, s8, u8)");
}

std::vector<dim> to_list(const dims& d) { return d.to_vector(); }

// ---- capsules, as the DLPack Python specification has them ----

constexpr const char* capsule_name = "dltensor";
constexpr const char* used_capsule_name = "used_dltensor";

/// A capsule "dltensor" holding `t`: a consumer renames it "used_dltensor" and owns the
/// deleter call; a capsule destroyed unconsumed calls the deleter itself.
py::capsule make_capsule(DLManagedTensor* t) {
  PyObject* c = PyCapsule_New(t, capsule_name, [](PyObject* self) {
    if (PyCapsule_IsValid(self, used_capsule_name)) return;
    PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(self, capsule_name));
    if (managed == nullptr) PyErr_WriteUnraisable(self);
    else if (managed->deleter != nullptr) managed->deleter(managed);
    PyErr_Restore(type, value, traceback);
  });
  if (c == nullptr) {
    t->deleter(t);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(c);
}

/// A memfmt memory shared between Python and the exports that show it.
struct tensor {
  std::shared_ptr<memory> mem;

  py::capsule dlpack(bool logical) const {
    return make_capsule(memfmt::to_dlpack(std::shared_ptr<const memory>(mem),
                                          logical ? memfmt::dlpack_dims::logical : memfmt::dlpack_dims::unfold));
  }
};

/// An imported DLPack tensor; the producer's deleter runs when Python lets go of it.
struct imported {
  std::shared_ptr<memfmt::dlpack_memory> m;
};

imported import_capsule(const py::capsule& cap) {
  PyObject* o = cap.ptr();
  if (!PyCapsule_IsValid(o, capsule_name))
    throw py::value_error("import_capsule: not a DLPack capsule named 'dltensor' (consumed already?)");
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(o, capsule_name));
  if (PyCapsule_SetName(o, used_capsule_name) != 0) throw py::error_already_set();
  // (the tensor is ours now: dlpack_memory calls its deleter once, also when it refuses it)
  return imported{std::make_shared<memfmt::dlpack_memory>(t)};
}

// ---- a producer of any tensor, for the refusals ----

int fake_deleted_count = 0;

struct fake_producer {
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape, strides;
  std::vector<double> buffer = std::vector<double>(64, 0.0);
  py::object base;  ///< the object whose buffer the tensor shows, if any
};

py::capsule fake_capsule(int device_type, int device_id, int code, int bits, int lanes, std::vector<std::int64_t> shape,
                         std::vector<std::int64_t> strides, std::uint64_t byte_offset, const py::object& base) {
  auto p = std::make_unique<fake_producer>();
  p->shape = std::move(shape);
  p->strides = std::move(strides);
  DLTensor& t = p->managed.dl_tensor;
  t.data = p->buffer.data();
  if (!base.is_none()) {
    t.data = py::buffer(base).request().ptr;
    p->base = base;
  }
  std::memcpy(&t.device.device_type, &device_type, sizeof device_type);  // (any number, as a C producer may)
  t.device.device_id = device_id;
  t.ndim = static_cast<int>(p->shape.size());
  t.dtype = DLDataType{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), static_cast<std::uint16_t>(lanes)};
  t.shape = p->shape.data();
  t.strides = p->strides.empty() ? nullptr : p->strides.data();
  t.byte_offset = byte_offset;
  p->managed.manager_ctx = p.get();
  p->managed.deleter = [](DLManagedTensor* self) {
    const py::gil_scoped_acquire gil;  // (drops the reference to the base)
    ++fake_deleted_count;
    delete static_cast<fake_producer*>(self->manager_ctx);
  };
  return make_capsule(&p.release()->managed);
}

}  // namespace

PYBIND11_MODULE(memfmt_dlpack_py, m) {
  m.doc() = "memfmt/interop/dlpack.hpp for the NumPy checks (tests/interop/dlpack_numpy_test.py)";

  py::class_<tensor>(m, "Tensor")
      .def(py::init([](const std::vector<dim>& shape, const std::string& dt, const std::string& tag) {
             return tensor{std::make_shared<memory>(desc(shape, parse_type(dt), tag))};
           }),
           py::arg("dims"), py::arg("dtype"), py::arg("tag"))
      .def_static(
          "strided",
          [](const std::vector<dim>& shape, const std::string& dt, const std::vector<dim>& strides) {
            return tensor{std::make_shared<memory>(desc(shape, parse_type(dt), dims(strides)))};
          },
          py::arg("dims"), py::arg("dtype"), py::arg("strides"))
      .def(
          "view",
          [](const tensor& t, const std::vector<dim>& sizes, const std::vector<dim>& offsets) {
            const desc vd = t.mem->get_desc().submemory_desc(sizes, offsets);
            // the view keeps its parent's buffer alive
            auto parent = t.mem;
            return tensor{std::shared_ptr<memory>(new memory(vd, parent->get_data_handle()),
                                                  [parent](memory* v) { delete v; })};
          },
          py::arg("sizes"), py::arg("offsets"))
      .def("fill", [](const tensor& t, std::int64_t seed) { fill(*t.mem, seed); }, py::arg("seed") = 0)
      .def("bits", [](const tensor& t, const std::vector<dim>& index) { return bits_at(*t.mem, index); })
      .def_property_readonly("dims", [](const tensor& t) { return to_list(t.mem->get_desc().get_dims()); })
      .def_property_readonly("strides", [](const tensor& t) { return to_list(t.mem->get_desc().get_strides()); })
      .def_property_readonly("desc_str", [](const tensor& t) { return t.mem->get_desc().str(); })
      .def_property_readonly("data_address",
                             [](const tensor& t) { return reinterpret_cast<std::uintptr_t>(t.mem->get_data_handle()); })
      .def("dlpack", &tensor::dlpack, py::arg("logical") = false)
      .def(
          "__dlpack__", [](const tensor& t, const py::object& stream) {
            if (!stream.is_none()) throw py::value_error("memfmt tensors are on the CPU: stream must be None");
            return t.dlpack(false);
          },
          py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const tensor&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); });

  py::class_<imported>(m, "Imported")
      .def("bits", [](const imported& i, const std::vector<dim>& index) { return bits_at(i.m->get(), index); })
      .def_property_readonly("dims", [](const imported& i) { return to_list(i.m->get_desc().get_dims()); })
      .def_property_readonly("strides", [](const imported& i) { return to_list(i.m->get_desc().get_strides()); })
      .def_property_readonly("offset0", [](const imported& i) { return i.m->get_desc().get_submemory_offset(); })
      .def_property_readonly("dtype", [](const imported& i) {
        return std::string(memfmt::to_string(i.m->get_desc().get_data_type()));
      })
      .def_property_readonly("desc_str", [](const imported& i) { return i.m->get_desc().str(); })
      .def_property_readonly("data_address",
                             [](const imported& i) { return reinterpret_cast<std::uintptr_t>(i.m->get_data_handle()); })
      .def_property_readonly("byte_offset", [](const imported& i) { return i.m->get_managed().dl_tensor.byte_offset; })
      // exported again: the export shares the import, which keeps the producer's tensor
      .def(
          "__dlpack__",
          [](const imported& i, const py::object& stream) {
            if (!stream.is_none()) throw py::value_error("memfmt tensors are on the CPU: stream must be None");
            return make_capsule(memfmt::to_dlpack(std::shared_ptr<const memory>(i.m, &i.m->get())));
          },
          py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const imported&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); });

  m.def("import_capsule", &import_capsule, py::arg("capsule"));
  m.def(
      "from_dlpack", [](const py::object& obj) { return import_capsule(obj.attr("__dlpack__")()); }, py::arg("obj"));
  m.def("live_exports", &memfmt::dlpack_live_exports);
  m.def("fake_capsule", &fake_capsule, py::arg("device_type") = 1, py::arg("device_id") = 0,
        py::arg("code") = static_cast<int>(kDLFloat), py::arg("bits") = 32, py::arg("lanes") = 1,
        py::arg("shape") = std::vector<std::int64_t>{2, 3}, py::arg("strides") = std::vector<std::int64_t>{},
        py::arg("byte_offset") = 0, py::arg("base") = py::none());
  m.def("fake_deleted", [] { return fake_deleted_count; });
}
