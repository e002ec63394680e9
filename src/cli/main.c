#include "blockbloom.h"
int main(void) { return 0; }
