// libdeflate (installed with libvips-dev, through libtiff-dev): whole-buffer zlib inflating
// and CRC-32 for the direct path's PNG decoder, several times zlib's speed.
#include <libdeflate.h>
