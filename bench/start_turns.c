// Spawn to the `initialize` answer of several servers, N starts of each in turns; prints the
// median of each (ms). INIT is a file holding the `initialize` line. A C client adds less of
// its own to each start than a Python one (posix_spawn, no interpreter).
//
//   cc -O2 bench/start_turns.c -o target/start_turns
//   target/start_turns N INIT CMD ARGS... [-- CMD ARGS...]...
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { MAX_COMMANDS = 16 };

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

// Starts `command`, writes `init` to it and returns the ms until its first line, or -1.
static double one_start(char **command, const char *init, size_t init_len) {
    int input[2], output[2];
    if (pipe(input) || pipe(output)) {
        perror("pipe");
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input[0], 0);
    posix_spawn_file_actions_adddup2(&actions, output[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", 1, 0);
    posix_spawn_file_actions_addclose(&actions, input[1]);
    posix_spawn_file_actions_addclose(&actions, output[0]);
    double started = now_ms();
    pid_t pid;
    if (posix_spawn(&pid, command[0], &actions, NULL, command, environ)) {
        perror(command[0]);
        return -1;
    }
    close(input[0]);
    close(output[1]);
    if (write(input[1], init, init_len) != (ssize_t)init_len) {
        perror("write");
    }
    char buffer[4096];
    int answered = 0;
    for (;;) {
        ssize_t got = read(output[0], buffer, sizeof buffer);
        if (got <= 0) {
            break;
        }
        if (memchr(buffer, '\n', got)) {
            answered = 1;
            break;
        }
    }
    double elapsed = now_ms() - started;
    close(input[1]);
    close(output[0]);
    waitpid(pid, NULL, 0);
    posix_spawn_file_actions_destroy(&actions);
    if (!answered) {
        fprintf(stderr, "%s: no answer\n", command[0]);
        return -1;
    }
    return elapsed;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: start_turns N INIT CMD ARGS... [-- CMD ARGS...]...\n");
        return 2;
    }
    int starts = atoi(argv[1]);
    char **commands[MAX_COMMANDS];
    int count = 0;
    commands[count++] = &argv[3];
    for (int i = 3; i < argc && count < MAX_COMMANDS; i++) {
        if (!strcmp(argv[i], "--")) {
            argv[i] = NULL;
            commands[count++] = &argv[i + 1];
        }
    }
    char init[4096];
    FILE *file = fopen(argv[2], "r");
    if (!file) {
        perror(argv[2]);
        return 2;
    }
    size_t init_len = fread(init, 1, sizeof init - 1, file);
    fclose(file);
    if (init_len == 0) {
        fprintf(stderr, "%s: empty\n", argv[2]);
        return 2;
    }
    if (init[init_len - 1] != '\n') {
        init[init_len++] = '\n';
    }
    double *times = malloc(sizeof(double) * starts * count);
    for (int round = 0; round < starts; round++) {
        for (int c = 0; c < count; c++) {
            double ms = one_start(commands[c], init, init_len);
            if (ms < 0) {
                return 1;
            }
            times[c * starts + round] = ms;
        }
    }
    for (int c = 0; c < count; c++) {
        qsort(times + c * starts, starts, sizeof(double), by_value);
        printf("%.3f ms  %s\n", times[c * starts + starts / 2], commands[c][0]);
    }
    free(times);
    return 0;
}
