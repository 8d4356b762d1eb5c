/* Solitaire Scandinavian Yatzy solved exactly, single-threaded: the C reference of
 * scripts/bench_solver.py.
 *
 * Rules of docs/rules.md (preset `yatzy`): one free column of 15 rows, 5 dice,
 * 3 rolls, numbers bonus 50 at 63. A state at the start of a turn is (filled rows, sum of
 * the number rows capped at 63); its value is the expected number of points still to come.
 * States are solved from full tables back to the empty one; each state runs the usual
 * keep recursion: a keep of s dice is worth the mean over the six faces of the keep with
 * one more die, a hand after a roll is worth the best of stopping (its best fill) and its
 * best proper sub-keep. Only reachable upper sums are solved, as in expected_scores.
 *
 * Prints the optimal expected score (248.4400) and the solve time in seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DICE 5
#define FACES 6
#define ROWS 15
#define THRESHOLD 63
#define BONUS 50
#define MAX_KEEPS 462
#define N_HANDS 252

static int n_keeps, first_full;
static int keep_counts[MAX_KEEPS][FACES];
static int add_die[MAX_KEEPS][FACES];    /* keep + one die of face f, -1 when full */
static int remove_die[MAX_KEEPS][FACES]; /* keep - one die of face f, -1 when absent */
static int key_to_keep[7 * 7 * 7 * 7 * 7 * 7];
static double first_prob[N_HANDS];
static int score[N_HANDS][ROWS];
static double values[1 << ROWS][THRESHOLD + 1];
static unsigned char reachable[1 << 6][THRESHOLD + 1];

static int key_of(const int *c) {
    int key = 0;
    for (int f = FACES - 1; f >= 0; f--) key = key * 7 + c[f];
    return key;
}

static void enumerate_keeps(void) {
    int c[FACES];
    n_keeps = 0;
    for (int size = 0; size <= DICE; size++) {
        if (size == DICE) first_full = n_keeps;
        /* lexicographic over counts of faces 1..6 with this total */
        for (c[0] = size; c[0] >= 0; c[0]--)
        for (c[1] = size - c[0]; c[1] >= 0; c[1]--)
        for (c[2] = size - c[0] - c[1]; c[2] >= 0; c[2]--)
        for (c[3] = size - c[0] - c[1] - c[2]; c[3] >= 0; c[3]--)
        for (c[4] = size - c[0] - c[1] - c[2] - c[3]; c[4] >= 0; c[4]--) {
            c[5] = size - c[0] - c[1] - c[2] - c[3] - c[4];
            memcpy(keep_counts[n_keeps], c, sizeof c);
            key_to_keep[key_of(c)] = n_keeps++;
        }
    }
    for (int k = 0; k < n_keeps; k++) {
        int size = 0;
        for (int f = 0; f < FACES; f++) size += keep_counts[k][f];
        for (int f = 0; f < FACES; f++) {
            int d[FACES];
            memcpy(d, keep_counts[k], sizeof d);
            d[f]++;
            add_die[k][f] = size < DICE ? key_to_keep[key_of(d)] : -1;
            d[f] -= 2;
            remove_die[k][f] = d[f] >= 0 ? key_to_keep[key_of(d)] : -1;
        }
    }
}

static int yatzy_score(const int *c, int row) {
    int sum = 0, pair = 0, pairs = 0, pair_sum = 0, three = 0, four = 0, has3 = 0, has2 = 0;
    for (int f = 0; f < FACES; f++) {
        int face = f + 1;
        sum += face * c[f];
        if (c[f] >= 2) { pair = 2 * face; pairs++; pair_sum += 2 * face; }
        if (c[f] >= 3) three = 3 * face;
        if (c[f] >= 4) four = 4 * face;
        if (c[f] == 3) has3 = 1;
        if (c[f] == 2) has2 = 1;
    }
    if (row < 6) return (row + 1) * c[row];
    switch (row) {
    case 6: return pair;                                   /* one_pair: the highest pair */
    case 7: return pairs == 2 ? pair_sum : 0;              /* two_pairs, two different faces */
    case 8: return three;                                  /* three_of_a_kind */
    case 9: return four;                                   /* four_of_a_kind */
    case 10: return c[0] && c[1] && c[2] && c[3] && c[4] ? 15 : 0; /* small straight 1-5 */
    case 11: return c[1] && c[2] && c[3] && c[4] && c[5] ? 20 : 0; /* large straight 2-6 */
    case 12: return has3 && has2 ? sum : 0;                /* full house */
    case 13: return sum;                                   /* chance */
    default: for (int f = 0; f < FACES; f++) if (c[f] == 5) return 50; return 0; /* yatzy */
    }
}

static void hand_tables(void) {
    static const int factorial[] = {1, 1, 2, 6, 24, 120};
    for (int m = 0; m < N_HANDS; m++) {
        const int *c = keep_counts[first_full + m];
        int ways = factorial[DICE];
        for (int f = 0; f < FACES; f++) ways /= factorial[c[f]];
        first_prob[m] = ways / 7776.0;
        for (int r = 0; r < ROWS; r++) score[m][r] = yatzy_score(c, r);
    }
}

static void reachable_sums(void) {
    for (int filled = 0; filled < 64; filled++) {
        unsigned char sums[THRESHOLD + 1] = {1};
        for (int f = 0; f < 6; f++) {
            if (!(filled >> f & 1)) continue;
            unsigned char next[THRESHOLD + 1] = {0};
            for (int s = 0; s <= THRESHOLD; s++)
                if (sums[s])
                    for (int k = 0; k <= DICE; k++) {
                        int t = s + (f + 1) * k;
                        next[t < THRESHOLD ? t : THRESHOLD] = 1;
                    }
            memcpy(sums, next, sizeof sums);
        }
        memcpy(reachable[filled], sums, sizeof sums);
    }
}

/* Value of the state (mask, upper): one turn planned exactly, then the best fill. */
static double solve_state(int mask, int upper) {
    double option[N_HANDS], value[N_HANDS], kv[MAX_KEEPS], best[MAX_KEEPS];
    double upper_next[6][DICE + 1], lower_next[ROWS];
    for (int r = 0; r < ROWS; r++) {
        if (mask >> r & 1) continue;
        if (r < 6) {
            for (int k = 0; k <= DICE; k++) {
                int s = k * (r + 1), u = upper + s;
                double bonus = upper < THRESHOLD && u >= THRESHOLD ? BONUS : 0;
                upper_next[r][k] = s + bonus + values[mask | 1 << r][u < THRESHOLD ? u : THRESHOLD];
            }
        } else {
            lower_next[r] = values[mask | 1 << r][upper];
        }
    }
    for (int m = 0; m < N_HANDS; m++) {
        double b = -1e300;
        const int *c = keep_counts[first_full + m];
        for (int r = 0; r < ROWS; r++) {
            if (mask >> r & 1) continue;
            double v = r < 6 ? upper_next[r][c[r]] : score[m][r] + lower_next[r];
            if (v > b) b = v;
        }
        option[m] = value[m] = b;
    }
    for (int roll = 2; roll >= 1; roll--) { /* the hand after roll 2, then after roll 1 */
        for (int m = 0; m < N_HANDS; m++) kv[first_full + m] = value[m];
        for (int k = first_full - 1; k >= 0; k--) {
            double s = 0;
            for (int f = 0; f < FACES; f++) s += kv[add_die[k][f]];
            kv[k] = s / FACES;
        }
        for (int k = 0; k < first_full; k++) {
            double b = kv[k];
            for (int f = 0; f < FACES; f++) {
                int j = remove_die[k][f];
                if (j >= 0 && best[j] > b) b = best[j];
            }
            best[k] = b;
        }
        for (int m = 0; m < N_HANDS; m++) {
            double v = option[m];
            for (int f = 0; f < FACES; f++) {
                int j = remove_die[first_full + m][f];
                if (j >= 0 && best[j] > v) v = best[j];
            }
            value[m] = v;
        }
    }
    double start = 0;
    for (int m = 0; m < N_HANDS; m++) start += first_prob[m] * value[m];
    return start;
}

int main(void) {
    enumerate_keeps();
    hand_tables();
    reachable_sums();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long states = 0;
    int full = (1 << ROWS) - 1;
    for (int u = 0; u <= THRESHOLD; u++) values[full][u] = 0;
    for (int mask = full - 1; mask >= 0; mask--) /* a fill only sets bits: larger masks first */
        for (int u = 0; u <= THRESHOLD; u++)
            if (reachable[mask & 63][u]) {
                values[mask][u] = solve_state(mask, u);
                states++;
            }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    printf("{\"expected_score\": %.4f, \"states\": %ld, \"seconds\": %.3f}\n", values[0][0], states, seconds);
    return 0;
}
