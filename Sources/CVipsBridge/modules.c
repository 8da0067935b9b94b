// libvips' modules, loaded one by one when an operation needs them (see CVipsBridge.h).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gmodule.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "CVipsBridge.h"

// Where the modules live, fixed when libvips starts; NULL until then.
static char *module_folder = NULL;

// The module folder under library folder `lib`.
static char *modules_under(const char *lib) {
    return g_strdup_printf("%s/vips-modules-%d.%d", lib, vips_version(0), vips_version(1));
}

// As vips_init would look: $VIPSHOME/lib, else the folder libvips itself was loaded from. A
// VIPSHOME without a module folder is passed over: vips_init sets it to the bare install prefix
// in every process that starts libvips (pyvips' Python, for one), and a workbench started from
// such a process inherits it, though Debian keeps the modules in its multiarch folder.
static char *find_module_folder(const char *vipshome) {
    if (vipshome != NULL) {
        char *lib = g_build_filename(vipshome, "lib", NULL);
        char *folder = modules_under(lib);
        g_free(lib);
        if (g_file_test(folder, G_FILE_TEST_IS_DIR)) return folder;
        g_free(folder);
    }
    Dl_info info;
    if (dladdr((void *) vips_init, &info) == 0 || info.dli_fname == NULL) return NULL;
    char *lib = g_path_get_dirname(info.dli_fname);
    char *folder = modules_under(lib);
    g_free(lib);
    return folder;
}

const char *cvips_module_folder(void) { return module_folder; }

int cvips_start_without_modules(const char *argv0) {
    const char *home = getenv("VIPSHOME");
    char *saved = home != NULL ? g_strdup(home) : NULL;
    module_folder = find_module_folder(saved);
    // libvips reads VIPSHOME once, at init: a folder that cannot exist means no modules. Called
    // once, before libvips runs anything, from the one thread starting it; vips_init itself
    // sets VIPSHOME when it is unset, so this adds no new kind of write to the environment.
    // setenv fails only without memory; then libvips loads every module at init, as it does by
    // default, which is slower to start and nothing worse.
    setenv("VIPSHOME", "/nonexistent/workbench-loads-vips-modules-itself", 1);
    int result = vips_init(argv0);
    // Putting the caller's value back is best effort for the same reason.
    if (saved != NULL) {
        setenv("VIPSHOME", saved, 1);
        g_free(saved);
    } else {
        unsetenv("VIPSHOME");
    }
    return result;
}

int cvips_load_module(const char *name, const char **message) {
    // Callers hold VipsModules' lock, so one message at a time.
    static char *last_error = NULL;
    if (module_folder == NULL) return 1;
    char *file = g_strdup_printf("%s/vips-%s.so", module_folder, name);
    if (access(file, R_OK) != 0) {
        g_free(file);
        return 1;
    }
    // The module registers its operations as it loads (g_module_check_init) and asks to stay
    // resident; GLib hands back the same module on a second open.
    GModule *module = g_module_open(file, G_MODULE_BIND_LAZY);
    g_free(file);
    if (module == NULL) {
        g_free(last_error);
        last_error = g_strdup(g_module_error());
        *message = last_error;
        return -1;
    }
    return 0;
}
