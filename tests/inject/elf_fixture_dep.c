/* Definitions that libelf_fixture.so imports (tests/inject/elf_fixture.c). */
int fixture_import_a(void) { return 1; }
int fixture_import_b(void) { return 2; }
