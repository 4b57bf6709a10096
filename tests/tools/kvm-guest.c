/*
 * A tiny KVM guest for tests/ftrace/test-kvm.sh: runs code that makes the
 * kvm and kvmmmu tracepoints fire (port and MMIO accesses, CPUID, MSRs,
 * control and debug registers, exceptions, page faults and page table
 * writes under shadow paging, HLT), so that `traceio print` can be compared
 * with `trace-cmd report` on real records.
 *
 * VM 1: 64-bit long mode with 4-level paging (4 KiB and 2 MiB pages, user
 *       and supervisor, read-only and writable mappings), an IDT whose
 *       handlers fix up #PF/#UD/#BP/#GP, a second page table tree to switch
 *       CR3 to, MMIO at an address no memory slot covers.
 * VM 2: 32-bit protected mode without paging (PVM hosts refuse paging
 *       outside long mode), then back to real mode.
 * VM 3: real mode: ports, memory, FXSAVE, HLT.
 * VM 4: VM 1's setup entered at an int3, which the emulator of PVM hosts
 *       refuses (an emulation failure: kvm_emulate_insn ... FAIL); elsewhere
 *       the #BP handler returns and HLT ends it.
 * A guest that goes wrong is stopped after 20 s (SIGALRM).
 *
 * Usage: kvm-guest [-q] [-m N]   (exit 0 when every VM ran to its end)
 *   -q    no guest output
 *   -m N  write N fixed-size trace_marker records after VM 1 and N after
 *         VM 2: room for tests/tools/kvm-records.py to rewrite into kvm
 *         events this host cannot make
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int quiet, markers;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

#define RAM_SIZE 0x400000UL
#define MMIO_GPA 0x40000000UL
#define CODE_GPA 0x10000UL
#define STACK_TOP 0x80000UL

/* guest physical layout of VM 1 */
#define PML4 0x1000UL
#define PDPT 0x2000UL
#define PD0 0x3000UL
#define PT0 0x4000UL /* 0-2 MiB, 4 KiB pages */
#define PT1 0x5000UL /* 2-4 MiB, filled by the guest */
#define PML4B 0x6000UL /* a second tree: same PDPT, CR3 switches between them */
#define PD1 0x7000UL /* 1 GiB: a 2 MiB page over the MMIO hole */
#define GDT 0x8000UL
#define IDT 0x9000UL
#define TSS 0xb000UL

/* ---- guest code (copied to CODE_GPA; position independent) ---- */
extern const uint8_t g64_start[], g64_end[], g64_int3[], g64_pf[], g64_ud[], g64_bp[], g64_gp[], g64_def[];
extern const uint8_t g32_start[], g32_end[];
extern const uint8_t g16_start[], g16_end[];

__asm__(".pushsection .rodata\n"
	".code64\n"
	".globl g64_start\n"
	"g64_start:\n"
	"	mov $0x3f8, %dx\n"
	"	mov $'L', %al\n"
	"	out %al, %dx\n"          /* port write */
	"	in %dx, %al\n"           /* port read */
	"	mov $0x3f9, %dx\n"
	"	mov $0x1234, %ax\n"
	"	out %ax, %dx\n"          /* 2-byte port write */
	"	xor %eax, %eax\n"
	"	cpuid\n"
	"	mov $1, %eax\n"
	"	cpuid\n"
	"	mov $0xd, %eax\n"
	"	xor %ecx, %ecx\n"
	"	cpuid\n"
	"	mov $0x1b, %ecx\n"
	"	rdmsr\n"                 /* APIC base */
	"	mov $0xc0000102, %ecx\n"
	"	rdmsr\n"
	"	mov $0x5a5a, %eax\n"
	"	wrmsr\n"                 /* KERNEL_GS_BASE */
	"	mov $0x10, %ecx\n"
	"	rdmsr\n"                 /* TSC */
	"	mov $0x12345, %ecx\n"
	"	rdmsr\n"                 /* unknown MSR: #GP, the handler skips it */
	"	rdtsc\n"
	"	mov %cr0, %rax\n"
	"	mov %rax, %cr0\n"
	"	mov %cr4, %rax\n"
	"	or $0x40000, %rax\n"     /* OSXSAVE */
	"	mov %rax, %cr4\n"
	"	xor %ecx, %ecx\n"
	"	xor %edx, %edx\n"
	"	mov $3, %eax\n"
	"	xsetbv\n"
	"	mov $7, %eax\n"
	"	mov %rax, %dr7\n"
	"	mov %dr7, %rax\n"
	"	xor %eax, %eax\n"
	"	mov %rax, %dr7\n"
	"	mov %dr6, %rax\n"
	"	wbinvd\n"
	/* map 2 MiB + 4 KiB..: page table writes, INVLPG, CR3 reloads */
	"	movq $0x201003, 0x5008\n"
	"	invlpg 0x201000\n"
	"	movl $0x1234, 0x201000\n"
	"	movq $0x202007, 0x5010\n"
	"	movl $0x5678, 0x202000\n"
	"	movq $0x202005, 0x5010\n" /* read-only now */
	"	invlpg 0x202000\n"
	"	mov 0x202000, %eax\n"
	"	movl $1, 0x203000\n"     /* not present: #PF, the handler maps it */
	"	movl $2, 0x204000\n"
	"	movl $3, 0x202004\n"     /* read-only: #PF (write), the handler makes it writable */
	"	mov %cr3, %rax\n"
	"	mov %rax, %cr3\n"
	"	mov $0x6000, %rax\n"
	"	mov %rax, %cr3\n"        /* the other tree */
	"	movl $4, 0x205000\n"
	"	movq $0x201007, 0x5008\n"
	"	mov $0x1000, %rax\n"
	"	mov %rax, %cr3\n"
	"	movl $5, 0x201010\n"
	/* CR0.WP and EFER.NXE off for a while: shadow pages of other roles */
	"	mov %cr0, %rax\n"
	"	and $~0x10000, %rax\n"
	"	mov %rax, %cr0\n"
	"	movl $9, 0x201020\n"
	"	mov 0x205000, %eax\n"
	"	mov %cr0, %rax\n"
	"	or $0x10000, %rax\n"
	"	mov %rax, %cr0\n"
	"	mov $0xc0000080, %ecx\n"
	"	rdmsr\n"
	"	and $~0x800, %eax\n"
	"	wrmsr\n"
	"	movl $10, 0x201030\n"
	"	mov 0x204000, %eax\n"
	"	rdmsr\n"
	"	or $0x800, %eax\n"
	"	wrmsr\n"
	/* MMIO: a 2 MiB page over guest physical memory no slot covers */
	"	movl $0xdeadbeef, 0x40000000\n"
	"	mov 0x40000008, %eax\n"
	"	movb $0x11, 0x40001000\n"
	"	movq $0x1122334455, %rax\n"
	"	mov %rax, 0x40000010\n"
	/* exceptions */
	/* int3 is refused by the PVM emulator */
	"	ud2\n"
	"	xor %eax, %eax\n"
	"	mov %rax, 0x300000\n"    /* not present: #PF */
	"	mov %rax, 0x801000\n"    /* no page table: #PF, the handler adds one */
	/* a 2 MiB page (4-6 MiB -> 2-4 MiB), and an NX one (6-8 MiB -> 0-2 MiB) */
	"	mov 0x400000, %eax\n"
	"	movl $6, 0x401000\n"
	"	mov 0x600000, %eax\n"
	/* string I/O (hypercalls loop on PVM hosts) */
	"	lea g64_msg(%rip), %rsi\n"
	"	mov $3, %ecx\n"
	"	mov $0x3f8, %dx\n"
	"	rep outsb\n"
	/* to user mode: on PVM hosts user mode runs natively */
	"	pushq $0x23\n"
	"	pushq $0x2f000\n"
	"	pushq $0x2\n"
	"	pushq $0x1b\n"
	"	lea g64_user(%rip), %rax\n"
	"	push %rax\n"
	"	iretq\n"
	"g64_done:\n"
	"	mov %cr3, %rax\n"
	"	mov %rax, %cr3\n"       /* sync the unsync pages */
	"	movl $8, 0x207000\n"
	"	mov $0x3f8, %dx\n"
	"	mov $'\\n', %al\n"
	"	out %al, %dx\n"
	"	hlt\n"
	"	jmp .\n"
	"g64_msg: .ascii \"abc\"\n"
	"g64_user:\n"
	"	xor %eax, %eax\n"
	"	cpuid\n"
	"	rdtsc\n"
	"	movl $1, 0x210000\n"    /* #PF in user mode */
	"	movl $2, 0x211000\n"
	"	mov 0x212000, %eax\n"
	"	movq $0x206007, 0x5030\n"  /* a page table written from user mode: unsync */
	"	movq $0x207007, 0x5038\n"
	"	movl $7, 0x206000\n"
	"	mov $200000, %ecx\n"   /* spin: host interrupts */
	"1:	pause\n"
	"	dec %ecx\n"
	"	jnz 1b\n"
	"	ud2\n"                   /* back to the kernel: the #UD handler ends */
	/* a second run starts here: int3 (the PVM emulator refuses it) */
	".globl g64_int3\n"
	"g64_int3:\n"
	"	int3\n"
	"	hlt\n"
	".globl g64_pf\n"
	"g64_pf:\n"
	"	push %rax\n"
	"	push %rbx\n"
	"	push %rcx\n"
	"	mov %cr2, %rcx\n"
	"	mov %rcx, %rbx\n"
	"	shr $12, %rbx\n"
	"	and $511, %rbx\n"
	"	cmp $0x400000, %rcx\n"
	"	jae 2f\n"
	"	mov %rcx, %rax\n"       /* 2-4 MiB: identity, in PT1 */
	"	and $~0xfff, %rax\n"
	"	or $7, %rax\n"
	"	mov %rax, 0x5000(,%rbx,8)\n"
	"	jmp 3f\n"
	/* from 8 MiB: a new page table for PD0[4], frames from 3 MiB on */
	"2:	movq $0xa007, 0x3020\n"
	"	mov %rbx, %rax\n"
	"	shl $12, %rax\n"
	"	add $0x300007, %rax\n"
	"	mov %rax, 0xa000(,%rbx,8)\n"
	"3:	invlpg (%rcx)\n"
	"	pop %rcx\n"
	"	pop %rbx\n"
	"	pop %rax\n"
	"	add $8, %rsp\n"
	"	iretq\n"
	".globl g64_ud\n"
	"g64_ud:\n"
	"	testb $3, 8(%rsp)\n"
	"	jnz g64_done\n"
	"	addq $2, (%rsp)\n"
	"	iretq\n"
	".globl g64_bp\n"
	"g64_bp:\n"
	"	iretq\n"
	".globl g64_gp\n"
	"g64_gp:\n"
	"	add $8, %rsp\n"
	"	addq $2, (%rsp)\n"       /* rdmsr/wrmsr are 2 bytes */
	"	iretq\n"
	".globl g64_def\n"
	"g64_def:\n"
	"	mov $0x3f8, %dx\n"
	"	mov $'!', %al\n"
	"	out %al, %dx\n"
	"	hlt\n"
	".globl g64_end\n"
	"g64_end:\n"
	/* 32-bit protected mode, no paging: ports, CPUID, then back to real mode */
	".code32\n"
	".globl g32_start\n"
	"g32_start:\n"
	"	mov $0x3f8, %dx\n"
	"	mov $'P', %al\n"
	"	out %al, %dx\n"
	"	xor %eax, %eax\n"
	"	cpuid\n"
	"	movl $0xcafe, 0x20000\n"
	"	movl $0x40000000, %ebx\n"
	"	movl $7, (%ebx)\n"       /* MMIO */
	"	movw (%ebx), %ax\n"
	"	mov %cr0, %eax\n"
	"	and $~1, %eax\n"
	"	mov %eax, %cr0\n"       /* real mode (CS stays 32-bit cached) */
	"	mov $0x3f8, %dx\n"
	"	mov $'r', %al\n"
	"	out %al, %dx\n"
	"	hlt\n"
	".globl g32_end\n"
	"g32_end:\n"
	/* real mode: ports, memory, FXSAVE */
	".code16\n"
	".globl g16_start\n"
	"g16_start:\n"
	"	mov $0x3f8, %dx\n"
	"	mov $'R', %al\n"
	"	out %al, %dx\n"
	"	inc %al\n"
	"	out %al, %dx\n"
	"	mov $0x2000, %bx\n"
	"	movw $0x55aa, (%bx)\n"
	"	fxsave (%bx)\n"
	"	hlt\n"
	".globl g16_end\n"
	"g16_end:\n"
	".code64\n"
	".popsection\n");

/* ---- host side ---- */
static int kvm_fd;

struct vm {
	int fd, vcpu;
	struct kvm_run *run;
	uint8_t *ram;
};

static void die(const char *what)
{
	fprintf(stderr, "kvm-guest: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void vm_new(struct vm *v)
{
	v->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (v->fd < 0)
		die("KVM_CREATE_VM");
	v->ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (v->ram == MAP_FAILED)
		die("mmap");
	struct kvm_userspace_memory_region r = {
		.slot = 0, .guest_phys_addr = 0, .memory_size = RAM_SIZE,
		.userspace_addr = (uintptr_t)v->ram,
	};
	if (ioctl(v->fd, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
	v->vcpu = ioctl(v->fd, KVM_CREATE_VCPU, 0);
	if (v->vcpu < 0)
		die("KVM_CREATE_VCPU");
	int sz = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	v->run = mmap(NULL, (size_t)sz, PROT_READ | PROT_WRITE, MAP_SHARED, v->vcpu, 0);
	if (v->run == MAP_FAILED)
		die("mmap vcpu");
	/* CPUID as KVM supports it (xsetbv needs XSAVE in it) */
	int n = 128;
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + (size_t)n * sizeof(c->entries[0]));
	if (!c)
		die("calloc");
	c->nent = (uint32_t)n;
	if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c) == 0 && ioctl(v->vcpu, KVM_SET_CPUID2, c) < 0)
		die("KVM_SET_CPUID2");
	free(c);
}

static void vm_free(struct vm *v)
{
	close(v->vcpu);
	close(v->fd);
	munmap(v->ram, RAM_SIZE);
}

/* Runs until HLT or a failure; returns 0 on HLT, 1 on an emulation failure */
static int vm_run(struct vm *v, const char *name)
{
	uint64_t mmio_val = 0x0123456789abcdefULL;
	for (int n = 0; n < 100000; n++) {
		if (ioctl(v->vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR && timed_out) {
				struct kvm_regs regs;
				ioctl(v->vcpu, KVM_GET_REGS, &regs);
				fprintf(stderr, "kvm-guest: %s: timed out at rip 0x%llx\n", name,
					(unsigned long long)regs.rip);
				return 2;
			}
			if (errno == EINTR)
				continue;
			die("KVM_RUN");
		}
		struct kvm_run *r = v->run;
		switch (r->exit_reason) {
		case KVM_EXIT_HLT:
			return 0;
		case KVM_EXIT_IO:
			if (r->io.direction == KVM_EXIT_IO_OUT) {
				if (!quiet && r->io.size == 1)
					putchar(*((char *)r + r->io.data_offset));
			} else {
				memset((char *)r + r->io.data_offset, 0x42, (size_t)r->io.size * r->io.count);
			}
			break;
		case KVM_EXIT_MMIO:
			if (!r->mmio.is_write)
				memcpy(r->mmio.data, &mmio_val, r->mmio.len);
			break;
		case KVM_EXIT_INTERNAL_ERROR:
			if (!quiet) {
				struct kvm_regs regs;
				ioctl(v->vcpu, KVM_GET_REGS, &regs);
				printf("\n%s: internal error, suberror %u at rip 0x%llx:", name,
				       r->internal.suberror, (unsigned long long)regs.rip);
				for (unsigned i = 0; i < r->internal.ndata && i < 16; i++)
					printf(" %llx", (unsigned long long)r->internal.data[i]);
				putchar('\n');
			}
			return 1;
		default:
			fprintf(stderr, "kvm-guest: %s: exit reason %u\n", name, r->exit_reason);
			if (r->exit_reason == KVM_EXIT_FAIL_ENTRY)
				fprintf(stderr, "  hardware entry failure 0x%llx\n",
					(unsigned long long)r->fail_entry.hardware_entry_failure_reason);
			return 2;
		}
	}
	fprintf(stderr, "kvm-guest: %s: too many exits\n", name);
	return 2;
}

static void seg(struct kvm_segment *s, uint16_t sel, int code, int l, int db)
{
	memset(s, 0, sizeof(*s));
	s->base = 0;
	s->limit = 0xffffffff;
	s->selector = sel;
	s->type = code ? 0xb : 0x3;
	s->present = 1;
	s->dpl = 0;
	s->db = (uint8_t)db;
	s->s = 1;
	s->l = (uint8_t)l;
	s->g = 1;
}

static void idt_set(uint8_t *ram, int vec, uint64_t addr)
{
	uint8_t *e = ram + IDT + (size_t)vec * 16;
	memset(e, 0, 16);
	e[0] = (uint8_t)addr;
	e[1] = (uint8_t)(addr >> 8);
	e[2] = 0x08; /* selector */
	e[5] = 0x8e; /* present, DPL 0, 64-bit interrupt gate */
	e[6] = (uint8_t)(addr >> 16);
	e[7] = (uint8_t)(addr >> 24);
	e[8] = (uint8_t)(addr >> 32);
}

static int vm_long(const uint8_t *entry)
{
	struct vm v;
	vm_new(&v);
	uint64_t *pt = (uint64_t *)v.ram;
	pt[PML4 / 8] = PDPT | 7;
	pt[PML4B / 8] = PDPT | 7;
	pt[PDPT / 8] = PD0 | 7;
	pt[PDPT / 8 + 1] = PD1 | 3;
	pt[PD0 / 8] = PT0 | 7;
	pt[PD0 / 8 + 1] = PT1 | 7;
	pt[PD0 / 8 + 2] = 0x200000 | 0x87;
	pt[PD0 / 8 + 3] = 0x8000000000000083ULL; /* NX */
	for (uint64_t i = 0; i < 512; i++)
		pt[PT0 / 8 + i] = (i << 12) | (i < 0x10 ? 3 : i < 0x30 ? 7 : i < 0x40 ? 5 : i < 0x80 ? 7 : 3);
	pt[PT0 / 8 + 5] = PT1 | 7; /* the page table PT1 is user-writable */
	pt[PD1 / 8] = MMIO_GPA | 0x83;
	uint64_t *gdt = (uint64_t *)(v.ram + GDT);
	gdt[1] = 0x00af9b000000ffffULL;
	gdt[2] = 0x00cf93000000ffffULL;
	gdt[3] = 0x00affb000000ffffULL; /* user code */
	gdt[4] = 0x00cff3000000ffffULL; /* user data */
	gdt[5] = 0x0000890000000067ULL | ((uint64_t)TSS << 16); /* 64-bit TSS (below 16 MiB) */
	*(uint64_t *)(v.ram + TSS + 4) = STACK_TOP - 0x1000; /* RSP0 */
	size_t len = (size_t)(g64_end - g64_start);
	memcpy(v.ram + CODE_GPA, g64_start, len);
	for (int i = 0; i < 32; i++)
		idt_set(v.ram, i, CODE_GPA + (uint64_t)(g64_def - g64_start));
	idt_set(v.ram, 3, CODE_GPA + (uint64_t)(g64_bp - g64_start));
	idt_set(v.ram, 6, CODE_GPA + (uint64_t)(g64_ud - g64_start));
	idt_set(v.ram, 13, CODE_GPA + (uint64_t)(g64_gp - g64_start));
	idt_set(v.ram, 14, CODE_GPA + (uint64_t)(g64_pf - g64_start));

	struct kvm_sregs s;
	if (ioctl(v.vcpu, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	seg(&s.cs, 8, 1, 1, 0);
	seg(&s.ds, 16, 0, 0, 1);
	s.es = s.fs = s.gs = s.ss = s.ds;
	s.gdt.base = GDT;
	s.gdt.limit = 7 * 8 - 1;
	memset(&s.tr, 0, sizeof(s.tr));
	s.tr.base = TSS;
	s.tr.limit = 0x67;
	s.tr.selector = 0x28;
	s.tr.type = 11;
	s.tr.present = 1;
	s.idt.base = IDT;
	s.idt.limit = 256 * 16 - 1;
	s.cr3 = PML4;
	s.cr4 = 0x20 | 0x200 | 0x400; /* PAE, OSFXSR, OSXMMEXCPT */
	s.cr0 = 0x80050033;            /* PG, AM, WP, NE, ET, MP, PE */
	s.efer = 0x500 | 0x800;        /* LME, LMA, NXE */
	if (ioctl(v.vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS");
	struct kvm_regs r = {.rip = CODE_GPA + (uint64_t)(entry - g64_start), .rsp = STACK_TOP, .rflags = 2};
	if (ioctl(v.vcpu, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");
	int rc = vm_run(&v, entry == g64_start ? "long mode" : "long mode int3");
	vm_free(&v);
	return rc;
}

static int vm_prot(void)
{
	struct vm v;
	vm_new(&v);
	memcpy(v.ram + CODE_GPA, g32_start, (size_t)(g32_end - g32_start));
	struct kvm_sregs s;
	if (ioctl(v.vcpu, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	seg(&s.cs, 8, 1, 0, 1);
	seg(&s.ds, 16, 0, 0, 1);
	s.es = s.fs = s.gs = s.ss = s.ds;
	s.cr0 = 0x11; /* PE, ET */
	s.cr4 = 0;
	s.efer = 0;
	if (ioctl(v.vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS");
	struct kvm_regs r = {.rip = CODE_GPA, .rsp = STACK_TOP, .rflags = 2};
	if (ioctl(v.vcpu, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");
	int rc = vm_run(&v, "protected mode");
	vm_free(&v);
	return rc;
}

static int vm_real(void)
{
	struct vm v;
	vm_new(&v);
	memcpy(v.ram + CODE_GPA, g16_start, (size_t)(g16_end - g16_start));
	struct kvm_sregs s;
	if (ioctl(v.vcpu, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	s.cs.base = CODE_GPA;
	s.cs.selector = CODE_GPA >> 4;
	if (ioctl(v.vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS");
	struct kvm_regs r = {.rip = 0, .rsp = 0x8000, .rflags = 2};
	if (ioctl(v.vcpu, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");
	int rc = vm_run(&v, "real mode");
	vm_free(&v);
	return rc == 1 ? 0 : rc; /* the emulation failure is expected (or HLT) */
}

static void write_markers(void)
{
	if (!markers)
		return;
	int fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die("trace_marker");
	char text[120];
	for (int i = 0; i < markers; i++) {
		memset(text, '.', sizeof(text));
		memcpy(text, "kvm-guest marker", 16);
		text[17] = (char)('0' + i % 10);
		if (write(fd, text, sizeof(text)) != (ssize_t)sizeof(text))
			die("write trace_marker");
	}
	close(fd);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			quiet = 1;
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			markers = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: kvm-guest [-q] [-m N]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	struct sigaction sa = {.sa_handler = on_alarm};
	sigaction(SIGALRM, &sa, NULL);
	alarm(20);
	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die("/dev/kvm");
	int rc = vm_long(g64_start);
	write_markers();
	if (!rc)
		rc = vm_prot();
	write_markers();
	if (!rc)
		rc = vm_real();
	if (!rc) {
		rc = vm_long(g64_int3); /* HLT, or an emulation failure */
		rc = rc == 1 ? 0 : rc;
	}
	if (!quiet)
		printf("\nkvm-guest: %s\n", rc ? "failed" : "done");
	return rc;
}
