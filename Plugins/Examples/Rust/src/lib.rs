//! A plugin in Rust: `solarize.threshold` inverts every colour sample above `level` (a
//! photographic solarization); alpha is copied through. It links no Swift runtime, so its
//! table declares no toolchain. The structs below mirror `workbench_kernel.h` field by field.

use std::ffi::{c_void, CStr};
use std::os::raw::c_char;
use std::ptr;

const WB_KERNEL_API_VERSION: u32 = 1;
const WB_PLUGIN_API_VERSION: u32 = 1;
const WB_SAMPLE_U8: i32 = 0;
const WB_SAMPLE_U16: i32 = 1;

#[repr(C)]
pub struct ImageInfo {
    width: i32,
    height: i32,
    bands: i32,
    has_alpha: i32,
    format: i32,
    max: f32,
}

#[repr(C)]
pub struct Region {
    input: *const c_void,
    in_stride: isize,
    output: *mut c_void,
    out_stride: isize,
    left: i32,
    top: i32,
    width: i32,
    height: i32,
}

type Start = extern "C" fn(*mut c_void, *const ImageInfo, *mut *mut c_void, *mut c_char, usize) -> i32;
type Process = extern "C" fn(*mut c_void, *mut c_void, *const ImageInfo, *const Region, *mut c_char, usize) -> i32;
type Stop = extern "C" fn(*mut c_void, *mut c_void);
type Release = extern "C" fn(*mut c_void);

#[repr(C)]
pub struct Kernel {
    api_version: u32,
    name: *const c_char,
    margin: i32,
    input_colour_bands: i32,
    output_colour_bands: i32,
    instance: *mut c_void,
    start: Option<Start>,
    process: Option<Process>,
    stop: Option<Stop>,
    release: Option<Release>,
}

#[repr(C)]
pub struct Param {
    name: *const c_char,
    kind: i32,
    number: f64,
    text: *const c_char,
    numbers: *const f64,
    count: i32,
    rows: i32,
}

type Make = extern "C" fn(*mut c_void, *const Param, i32, *mut Kernel, *mut c_char, usize) -> i32;

#[repr(C)]
pub struct Filter {
    name: *const c_char,
    context: *mut c_void,
    make: Make,
}

#[repr(C)]
pub struct Plugin {
    api_version: u32,
    kernel_api_version: u32,
    toolchain: *const c_char,
    name: *const c_char,
    filter_count: i32,
    filters: *const Filter,
}

// The tables are read-only and live as long as the process.
struct Shared<T>(T);
unsafe impl<T> Sync for Shared<T> {}

static FILTERS: Shared<[Filter; 1]> = Shared([Filter {
    name: b"threshold\0".as_ptr() as *const c_char,
    context: ptr::null_mut(),
    make,
}]);

static PLUGIN: Shared<Plugin> = Shared(Plugin {
    api_version: WB_PLUGIN_API_VERSION,
    kernel_api_version: WB_KERNEL_API_VERSION,
    toolchain: ptr::null(),
    name: b"solarize\0".as_ptr() as *const c_char,
    filter_count: 1,
    filters: &FILTERS.0 as *const [Filter; 1] as *const Filter,
});

/// The plugin's one entry point.
#[no_mangle]
pub extern "C" fn workbench_plugin() -> *const Plugin {
    &PLUGIN.0
}

/// The threshold as a fraction of white, 0 … 1.
struct Solarize {
    level: f32,
}

extern "C" fn make(_: *mut c_void, params: *const Param, count: i32, kernel: *mut Kernel, _: *mut c_char, _: usize) -> i32 {
    let mut level = 128.0f64;
    let params = if params.is_null() { &[][..] } else { unsafe { std::slice::from_raw_parts(params, count.max(0) as usize) } };
    for param in params {
        if unsafe { CStr::from_ptr(param.name) }.to_bytes() == b"level" {
            level = param.number;
        }
    }
    let instance = Box::into_raw(Box::new(Solarize { level: (level / 255.0) as f32 }));
    unsafe {
        *kernel = Kernel {
            api_version: WB_KERNEL_API_VERSION,
            name: b"solarize.threshold\0".as_ptr() as *const c_char,
            margin: 0,
            input_colour_bands: 0,
            output_colour_bands: 0,
            instance: instance as *mut c_void,
            start: None,
            process: Some(process),
            stop: None,
            release: Some(release),
        };
    }
    0
}

extern "C" fn release(instance: *mut c_void) {
    drop(unsafe { Box::from_raw(instance as *mut Solarize) });
}

extern "C" fn process(instance: *mut c_void, _: *mut c_void, image: *const ImageInfo, region: *const Region,
                      _: *mut c_char, _: usize) -> i32 {
    let (solarize, image, region) = unsafe { (&*(instance as *const Solarize), &*image, &*region) };
    let bands = image.bands as usize;
    let colour = if image.has_alpha != 0 { bands - 1 } else { bands };
    let samples = region.width as usize * bands;
    for y in 0..region.height as isize {
        let input = unsafe { (region.input as *const u8).offset(y * region.in_stride) };
        let output = unsafe { (region.output as *mut u8).offset(y * region.out_stride) };
        match image.format {
            WB_SAMPLE_U8 => row(input as *const u8, output, samples, bands, colour, 255.0, solarize.level),
            WB_SAMPLE_U16 => row(input as *const u16, output as *mut u16, samples, bands, colour, 65535.0, solarize.level),
            _ => row(input as *const f32, output as *mut f32, samples, bands, colour, image.max, solarize.level),
        }
    }
    0
}

/// One row: samples above the level become white minus themselves.
fn row<T: Sample>(input: *const T, output: *mut T, samples: usize, bands: usize, colour: usize, white: f32, level: f32) {
    let (input, output) = unsafe { (std::slice::from_raw_parts(input, samples), std::slice::from_raw_parts_mut(output, samples)) };
    for (i, (out, &value)) in output.iter_mut().zip(input).enumerate() {
        let v = value.to_f32();
        *out = if i % bands < colour && v > level * white { T::from_f32(white - v) } else { value };
    }
}

trait Sample: Copy {
    fn to_f32(self) -> f32;
    fn from_f32(value: f32) -> Self;
}

impl Sample for u8 {
    fn to_f32(self) -> f32 { self as f32 }
    fn from_f32(value: f32) -> Self { value.round().clamp(0.0, 255.0) as u8 }
}

impl Sample for u16 {
    fn to_f32(self) -> f32 { self as f32 }
    fn from_f32(value: f32) -> Self { value.round().clamp(0.0, 65535.0) as u16 }
}

impl Sample for f32 {
    fn to_f32(self) -> f32 { self }
    fn from_f32(value: f32) -> Self { value }
}
