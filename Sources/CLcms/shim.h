// Little CMS 2 (lcms2), which libvips converts colour with, for the direct path's conversion of
// an embedded ICC profile to sRGB.
#include <lcms2.h>
