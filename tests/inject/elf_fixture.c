/* A shared object with known contents for the ELF reader's and the import
 * patcher's tests: a fixed build-id (set in CMakeLists.txt), two functions
 * it defines, and two it imports from libelf_fixture_dep.so, one called
 * through the PLT (a JUMP_SLOT relocation) and one whose address it takes
 * (a GLOB_DAT relocation). Linked with -z relro -z now, so both slots lie in
 * RELRO pages that are read-only once loaded. */
extern int fixture_import_a(void);
extern int fixture_import_b(void);

int fixture_call_a(void) { return fixture_import_a(); }

typedef int (*fixture_fn)(void);
/* Taking the address of an imported function reads it from the GOT. */
fixture_fn fixture_pointer_b(void) { return &fixture_import_b; }

int fixture_call_b(void) { return fixture_pointer_b()(); }

int fixture_data = 42;
