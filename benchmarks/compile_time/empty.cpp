// The baseline: a translation unit with nothing in it.
int main() { return 0; }
