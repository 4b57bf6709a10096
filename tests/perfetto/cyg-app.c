/*
 * The program recorded in tests/data/ctf/lttng-ust-cyg (see its ORIGIN.txt):
 * two threads calling nested functions, built with -finstrument-functions
 * and run under LD_PRELOAD=liblttng-ust-cyg-profile.so, so that every call
 * is a func_entry / func_exit pair (slices in the Perfetto output).
 */
#include <pthread.h>
#include <stdio.h>
static volatile long sink;
__attribute__((noinline)) static void leaf(int i) { sink += i; }
__attribute__((noinline)) static void mid(int i) { for (int k = 0; k < 3; k++) leaf(i + k); }
__attribute__((noinline)) static void top(int i) { mid(i); leaf(i); }
static void *worker(void *arg) { for (int i = 0; i < 40; i++) top(i); return arg; }
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
	printf("%ld\n", sink);
	return 0;
}
