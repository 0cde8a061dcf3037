/* `sinew view`: a window on a character (GLFW). */
#include "cli.h"

#include <stdio.h>

int cli_view(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "sinew: view: not yet\n");
    return EXIT_FAILED;
}
