/*
 * harness.c - runs the board firmware in simavr for the firmware-in-the-loop tests.
 *
 *   harness FIRMWARE.elf
 *
 * Exposes the AVR's UART0 as a pseudo-terminal (simavr's uart_pty part) and prints, one line
 * each, on stdout (line-buffered):
 *   PTY <path>                          the pseudo-terminal to open (ignore /tmp/simavr-uart0:
 *                                       every instance makes that same link)
 *   READY                               the CPU is held; write "go\n" on stdin to start it
 *   RUNNING                             the CPU runs
 *   PIN <port><bit> <0|1> <sim_ns> <host_ns>
 *                                       a GPIO output changed; sim_ns is simulated time since
 *                                       reset, host_ns is CLOCK_MONOTONIC (same clock as
 *                                       Python's time.monotonic_ns on Linux)
 *   TIME <sim_ns> <host_ns>             answer to "time\n" on stdin: the simulated clock now
 *   EXIT <state>                        the simulation stopped
 * End of stdin stops the simulation, so the harness never outlives the test that runs it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "avr_extint.h"
#include "avr_ioport.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_time.h"
#include "uart_pty.h"

static avr_t *avr;
static uart_pty_t pty;
static volatile int started;
static volatile int quit;

static uint64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Last level printed per port (B, C, D) and bit: pins come out of reset low. Some simavr
 * paths (timer compare outputs) raise the same level twice; only real changes are printed. */
static uint8_t last_level[3][8];

static void pin_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    intptr_t id = (intptr_t)param;
    uint8_t *last = &last_level[(id >> 8) - 'B'][id & 7];
    if (*last == (value & 1u)) {
        return;
    }
    *last = (uint8_t)(value & 1u);
    printf("PIN %c%d %u %llu %llu\n", (char)(id >> 8), (int)(id & 0xFF), value & 1u,
           (unsigned long long)avr_cycles_to_nsec(avr, avr->cycle),
           (unsigned long long)host_ns());
}

/* Real-time pacing. simavr's own sleep callback sleeps for each idle stretch separately, and
 * every sleep overshoots, so the simulated clock falls behind the wall clock (we measured it
 * running at 0.6-0.8 of real time). Here each idle stretch sleeps until an absolute deadline on
 * the host clock instead, so overshoots do not add up. If the host cannot keep up (more than
 * 20 ms behind), the anchor moves rather than letting the simulation race to catch up. The
 * simulation may run up to 0.5 ms ahead of the wall clock, so that it sleeps in a few longer
 * stretches instead of once per uart_pty poll (every 100 us or so). */
static uint64_t pace_host0, pace_sim0;

static void pace_anchor(void)
{
    pace_host0 = host_ns();
    pace_sim0 = avr_cycles_to_nsec(avr, avr->cycle);
}

static void pace_sleep(avr_t *a, avr_cycle_count_t how_long)
{
    uint64_t sim = avr_cycles_to_nsec(a, a->cycle + how_long);
    uint64_t due = pace_host0 + (sim - pace_sim0);
    uint64_t now = host_ns();
    if (now > due + 20000000ull) {
        pace_host0 = now;
        pace_sim0 = sim;
        return;
    }
    if (due > now + 500000ull) { /* sleep in chunks of at least 0.5 ms, not per timer tick */
        struct timespec ts = {(time_t)(due / 1000000000ull), (long)(due % 1000000000ull)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}

static void *stdin_reader(void *arg)
{
    (void)arg;
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "go", 2) == 0) {
            started = 1;
        } else if (strncmp(line, "time", 4) == 0) {
            /* Read from another thread: a torn read is harmless for "how far along is it". */
            printf("TIME %llu %llu\n", (unsigned long long)avr_cycles_to_nsec(avr, avr->cycle),
                   (unsigned long long)host_ns());
        } else if (strncmp(line, "quit", 4) == 0) {
            break;
        }
    }
    quit = 1;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIRMWARE.elf\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* A buzzer tone is ~2000 lines a second: give a slow reader room before the simulation
     * blocks on a full pipe (harmless if stdout is not a pipe). */
    fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "harness: cannot read firmware %s\n", argv[1]);
        return 2;
    }
    strcpy(fw.mmcu, "atmega328p");
    fw.frequency = 16000000;
    avr = avr_make_mcu_by_name(fw.mmcu);
    if (!avr) {
        fprintf(stderr, "harness: simavr does not know %s\n", fw.mmcu);
        return 2;
    }
    avr_init(avr);
    avr_load_firmware(avr, &fw);

    /* The firmware uses no external interrupt, but INT0/INT1 sit on PD2/PD3 (two LEDs): while
     * those pins are low, simavr's "strict" level-trigger emulation re-checks them on every
     * cycle, which keeps the simulation from ever idling (it then runs at ~0.5x real time on
     * a whole CPU). The real chip does not do this; switch it off. */
    avr_extint_set_strict_lvl_trig(avr, 0, 0);
    avr_extint_set_strict_lvl_trig(avr, 1, 0);

    uart_pty_init(avr, &pty);
    uart_pty_connect(&pty, '0');
    /* Keep one handle on the slave side open so that the master never sees a hang-up (EIO)
     * between a client closing the port and the next one opening it. */
    int keep = open(pty.port[0].slavename, O_RDWR | O_NOCTTY);
    (void)keep;

    const char ports[] = {'B', 'C', 'D'};
    for (unsigned p = 0; p < sizeof ports; p++) {
        for (int bit = 0; bit < 8; bit++) {
            avr_irq_t *irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(ports[p]), bit);
            if (irq) {
                avr_irq_register_notify(irq, pin_changed, (void *)(intptr_t)((ports[p] << 8) | bit));
            }
        }
    }

    printf("PTY %s\n", pty.port[0].slavename);
    printf("READY\n");
    pthread_t reader;
    pthread_create(&reader, NULL, stdin_reader, NULL);
    while (!started && !quit) {
        usleep(1000);
    }
    if (quit) {
        printf("EXIT not-started\n");
        return 0;
    }
    prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us: wake up when asked, not 50 us later */
    avr->sleep = pace_sleep;
    pace_anchor();
    printf("RUNNING\n");
    int state = cpu_Running;
    while (!quit) {
        state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            break;
        }
    }
    printf("EXIT %d\n", state);
    fflush(stdout);
    _exit(state == cpu_Crashed ? 1 : 0);
}
