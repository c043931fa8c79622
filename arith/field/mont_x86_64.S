/*
 * Montgomery multiplication and squaring for x86-64 with BMI2 (mulx) and
 * ADX (adcx/adox): 6 limbs for Fp and 4 limbs for Fr. The portable C in
 * mont.h computes the same values; fp.c and fr.c pick this file at compile
 * time (see mont_asm.h) and tests/field/test_field.c compares the two.
 *
 *   void mont_mul_384_x86(uint64_t ret[6], const uint64_t a[6],
 *                         const uint64_t b[6], const uint64_t m[6],
 *                         uint64_t inv);
 *   void mont_sqr_384_x86(uint64_t ret[6], const uint64_t a[6],
 *                         const uint64_t m[6], uint64_t inv);
 *   and the _256 variants for 4 limbs.
 * ret = a * b * 2^(-64n) mod m for a, b < m, inv = -m^-1 mod 2^64, and the
 * top limb of m below 2^63 - 1 (both BLS12-381 moduli qualify), so that
 * the accumulator never needs an eighth word. ret may alias a or b.
 *
 * Multiplication is CIOS (Koc, Acar, Kaliski 1996) with the product row
 * and the reduction row each split over two independent carry chains, CF
 * (adcx) and OF (adox), as in Gueron and Krasnov's "Speeding up big-number
 * squaring" (2012) and Intel's white paper "New instructions supporting
 * large integer arithmetic" (Ozturk et al., 2012). The accumulator is seven
 * registers used as a ring: after a reduction row the lowest word is zero
 * and becomes the next row's top word, so the rows rotate register names
 * instead of moving data.
 *
 * Squaring is the multiplication with b = a. Computing the 768-bit square
 * (21 of the 36 products) and then reducing it would gain nothing here:
 * on the AMD EPYC this was written on, the reduction alone
 * (mont_redc_768_x86) takes 22 ns, bound by its chain of k = t0 inv
 * dependencies, and the full 768-bit product 12 ns, against 29 ns for the
 * fused multiplication, whose product rows fill the reduction's latencies.
 */
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__ELF__)

	.text

/* ---------------------------------------------------------------- 6 limbs */

/* t[0..6] += a[0..5] * rdx, with t6 zero on entry; r8 holds zero. */
.macro MULROW6 A, T0, T1, T2, T3, T4, T5, T6
	xorl	%eax, %eax
	mulxq	0(\A), %rax, %r14
	adoxq	%rax, \T0
	adcxq	%r14, \T1
	mulxq	8(\A), %rax, %r14
	adoxq	%rax, \T1
	adcxq	%r14, \T2
	mulxq	16(\A), %rax, %r14
	adoxq	%rax, \T2
	adcxq	%r14, \T3
	mulxq	24(\A), %rax, %r14
	adoxq	%rax, \T3
	adcxq	%r14, \T4
	mulxq	32(\A), %rax, %r14
	adoxq	%rax, \T4
	adcxq	%r14, \T5
	mulxq	40(\A), %rax, %r14
	adoxq	%rax, \T5
	adcxq	%r14, \T6
	adoxq	%r8, \T6
.endm

/* k = t0 * inv; t += k * m. Afterwards t0 is zero (it is the word the
 * Montgomery step divides away) and the value sits in t1..t6. */
.macro REDROW6 M, T0, T1, T2, T3, T4, T5, T6
	movq	\T0, %rdx
	imulq	0(%rsp), %rdx
	xorl	%eax, %eax
	mulxq	0(\M), %rax, %r14
	adcxq	%rax, \T0
	adoxq	%r14, \T1
	mulxq	8(\M), %rax, %r14
	adcxq	%rax, \T1
	adoxq	%r14, \T2
	mulxq	16(\M), %rax, %r14
	adcxq	%rax, \T2
	adoxq	%r14, \T3
	mulxq	24(\M), %rax, %r14
	adcxq	%rax, \T3
	adoxq	%r14, \T4
	mulxq	32(\M), %rax, %r14
	adcxq	%rax, \T4
	adoxq	%r14, \T5
	mulxq	40(\M), %rax, %r14
	adcxq	%rax, \T5
	adoxq	%r14, \T6
	/* T0 is zero now; the last OF carry is zero because the sum stays
	 * below 2^(64*7). */
	adcxq	\T0, \T6
.endm

/* Store t - m if t >= m, else t (t < 2m), to (%rdi). Uses rax, rcx, rdx,
 * rsi, r8, r14 as scratch (not the ring). */
.macro FINAL6 M, T0, T1, T2, T3, T4, T5
	movq	\T0, %rax
	subq	0(\M), %rax
	movq	\T1, %rdx
	sbbq	8(\M), %rdx
	movq	\T2, %rsi
	sbbq	16(\M), %rsi
	movq	\T3, %r8
	sbbq	24(\M), %r8
	movq	\T4, %r14
	sbbq	32(\M), %r14
	movq	\T5, %rcx
	sbbq	40(\M), %rcx
	cmovcq	\T0, %rax
	cmovcq	\T1, %rdx
	cmovcq	\T2, %rsi
	cmovcq	\T3, %r8
	cmovcq	\T4, %r14
	cmovcq	\T5, %rcx
	movq	%rax, 0(%rdi)
	movq	%rdx, 8(%rdi)
	movq	%rsi, 16(%rdi)
	movq	%r8, 24(%rdi)
	movq	%r14, 32(%rdi)
	movq	%rcx, 40(%rdi)
.endm

.macro PUSH R
	pushq	\R
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset \R, 0
.endm

.macro POP R
	popq	\R
	.cfi_adjust_cfa_offset -8
	.cfi_restore \R
.endm

.macro PROLOGUE
	PUSH	%rbx
	PUSH	%rbp
	PUSH	%r12
	PUSH	%r13
	PUSH	%r14
	PUSH	%r15
.endm

.macro EPILOGUE
	POP	%r15
	POP	%r14
	POP	%r13
	POP	%r12
	POP	%rbp
	POP	%rbx
.endm

/*
 * Registers in mont_mul_384_x86: rdi ret (saved), rsi a, rcx b, r9 m,
 * r8 zero, rdx multiplier, rax/r14 product halves, and the ring
 * rbx rbp r10 r11 r12 r13 r15. The stack holds inv at 0(%rsp) and ret.
 */
	.globl	mont_mul_384_x86
	.hidden	mont_mul_384_x86
	.type	mont_mul_384_x86, @function
	.p2align 4
mont_mul_384_x86:
	.cfi_startproc
	PROLOGUE
	PUSH	%rdi
	PUSH	%r8
	movq	%rcx, %r9
	movq	%rdx, %rcx
	xorl	%r8d, %r8d

	/* Row 0: t = a * b[0], a plain product. */
	movq	0(%rcx), %rdx
	mulxq	0(%rsi), %rbx, %rbp
	mulxq	8(%rsi), %rax, %r10
	addq	%rax, %rbp
	mulxq	16(%rsi), %rax, %r11
	adcq	%rax, %r10
	mulxq	24(%rsi), %rax, %r12
	adcq	%rax, %r11
	mulxq	32(%rsi), %rax, %r13
	adcq	%rax, %r12
	mulxq	40(%rsi), %rax, %r15
	adcq	%rax, %r13
	adcq	$0, %r15
	REDROW6	%r9, %rbx, %rbp, %r10, %r11, %r12, %r13, %r15

	movq	8(%rcx), %rdx
	MULROW6	%rsi, %rbp, %r10, %r11, %r12, %r13, %r15, %rbx
	REDROW6	%r9, %rbp, %r10, %r11, %r12, %r13, %r15, %rbx

	movq	16(%rcx), %rdx
	MULROW6	%rsi, %r10, %r11, %r12, %r13, %r15, %rbx, %rbp
	REDROW6	%r9, %r10, %r11, %r12, %r13, %r15, %rbx, %rbp

	movq	24(%rcx), %rdx
	MULROW6	%rsi, %r11, %r12, %r13, %r15, %rbx, %rbp, %r10
	REDROW6	%r9, %r11, %r12, %r13, %r15, %rbx, %rbp, %r10

	movq	32(%rcx), %rdx
	MULROW6	%rsi, %r12, %r13, %r15, %rbx, %rbp, %r10, %r11
	REDROW6	%r9, %r12, %r13, %r15, %rbx, %rbp, %r10, %r11

	movq	40(%rcx), %rdx
	MULROW6	%rsi, %r13, %r15, %rbx, %rbp, %r10, %r11, %r12
	REDROW6	%r9, %r13, %r15, %rbx, %rbp, %r10, %r11, %r12

	/* The result is in r15 rbx rbp r10 r11 r12. */
	movq	8(%rsp), %rdi
	FINAL6	%r9, %r15, %rbx, %rbp, %r10, %r11, %r12

	addq	$16, %rsp
	.cfi_adjust_cfa_offset -16
	EPILOGUE
	ret
	.cfi_endproc
	.size	mont_mul_384_x86, .-mont_mul_384_x86

/*
 * The pieces of lazy reduction (Fp2 multiplication reduces two sums of
 * products instead of three products):
 *   mont_mul_384x384_x86(r[12], a[6], b[6])   r = a b, no reduction (r is
 *       written while a and b are read: it must not overlap them)
 *   mont_redc_768_x86(r[6], t[12], m[6], inv)  r = t 2^-384 mod m, t < m 2^384
 *   mont_sub_768_x86(r[12], a[12], b[12], m[6])
 *       r = a - b, plus m 2^384 when that borrows: for a, b < m 2^384 the
 *       result stays below m 2^384 and is congruent to a - b mod m.
 */
	.globl	mont_mul_384x384_x86
	.hidden	mont_mul_384x384_x86
	.type	mont_mul_384x384_x86, @function
	.p2align 4
mont_mul_384x384_x86:
	.cfi_startproc
	PROLOGUE
	movq	%rdx, %rcx
	xorl	%r8d, %r8d

	/* Row 0 as in mont_mul_384_x86; then each row stores its lowest word
	 * and clears the register, which becomes the next row's top word. */
	movq	0(%rcx), %rdx
	mulxq	0(%rsi), %rbx, %rbp
	mulxq	8(%rsi), %rax, %r10
	addq	%rax, %rbp
	mulxq	16(%rsi), %rax, %r11
	adcq	%rax, %r10
	mulxq	24(%rsi), %rax, %r12
	adcq	%rax, %r11
	mulxq	32(%rsi), %rax, %r13
	adcq	%rax, %r12
	mulxq	40(%rsi), %rax, %r15
	adcq	%rax, %r13
	adcq	$0, %r15
	movq	%rbx, 0(%rdi)
	movq	$0, %rbx

	movq	8(%rcx), %rdx
	MULROW6	%rsi, %rbp, %r10, %r11, %r12, %r13, %r15, %rbx
	movq	%rbp, 8(%rdi)
	movq	$0, %rbp

	movq	16(%rcx), %rdx
	MULROW6	%rsi, %r10, %r11, %r12, %r13, %r15, %rbx, %rbp
	movq	%r10, 16(%rdi)
	movq	$0, %r10

	movq	24(%rcx), %rdx
	MULROW6	%rsi, %r11, %r12, %r13, %r15, %rbx, %rbp, %r10
	movq	%r11, 24(%rdi)
	movq	$0, %r11

	movq	32(%rcx), %rdx
	MULROW6	%rsi, %r12, %r13, %r15, %rbx, %rbp, %r10, %r11
	movq	%r12, 32(%rdi)
	movq	$0, %r12

	movq	40(%rcx), %rdx
	MULROW6	%rsi, %r13, %r15, %rbx, %rbp, %r10, %r11, %r12
	movq	%r13, 40(%rdi)
	movq	%r15, 48(%rdi)
	movq	%rbx, 56(%rdi)
	movq	%rbp, 64(%rdi)
	movq	%r10, 72(%rdi)
	movq	%r11, 80(%rdi)
	movq	%r12, 88(%rdi)

	EPILOGUE
	ret
	.cfi_endproc
	.size	mont_mul_384x384_x86, .-mont_mul_384x384_x86

/*
 * With t = H 2^384 + L: the six reduction rows turn L into
 * (L + K m) / 2^384 <= m, exactly as in mont_mul_384_x86; adding H < m
 * leaves a value below 2m, and one conditional subtraction finishes.
 */
	.globl	mont_redc_768_x86
	.hidden	mont_redc_768_x86
	.type	mont_redc_768_x86, @function
	.p2align 4
mont_redc_768_x86:
	.cfi_startproc
	PROLOGUE
	PUSH	%rdi
	PUSH	%rcx
	movq	%rdx, %r9
	movq	0(%rsi), %rbx
	movq	8(%rsi), %rbp
	movq	16(%rsi), %r10
	movq	24(%rsi), %r11
	movq	32(%rsi), %r12
	movq	40(%rsi), %r13
	xorl	%r15d, %r15d

	REDROW6	%r9, %rbx, %rbp, %r10, %r11, %r12, %r13, %r15
	REDROW6	%r9, %rbp, %r10, %r11, %r12, %r13, %r15, %rbx
	REDROW6	%r9, %r10, %r11, %r12, %r13, %r15, %rbx, %rbp
	REDROW6	%r9, %r11, %r12, %r13, %r15, %rbx, %rbp, %r10
	REDROW6	%r9, %r12, %r13, %r15, %rbx, %rbp, %r10, %r11
	REDROW6	%r9, %r13, %r15, %rbx, %rbp, %r10, %r11, %r12

	addq	48(%rsi), %r15
	adcq	56(%rsi), %rbx
	adcq	64(%rsi), %rbp
	adcq	72(%rsi), %r10
	adcq	80(%rsi), %r11
	adcq	88(%rsi), %r12

	movq	8(%rsp), %rdi
	FINAL6	%r9, %r15, %rbx, %rbp, %r10, %r11, %r12

	addq	$16, %rsp
	.cfi_adjust_cfa_offset -16
	EPILOGUE
	ret
	.cfi_endproc
	.size	mont_redc_768_x86, .-mont_redc_768_x86

.macro SUBWORD I
	movq	8*\I(%rsi), %rax
	sbbq	8*\I(%rdx), %rax
	movq	%rax, 8*\I(%rdi)
.endm

	.globl	mont_sub_768_x86
	.hidden	mont_sub_768_x86
	.type	mont_sub_768_x86, @function
	.p2align 4
mont_sub_768_x86:
	.cfi_startproc
	/* Word by word: each word is written after it is read, so r may be
	 * a or b. */
	movq	0(%rsi), %rax
	subq	0(%rdx), %rax
	movq	%rax, 0(%rdi)
	SUBWORD	1
	SUBWORD	2
	SUBWORD	3
	SUBWORD	4
	SUBWORD	5
	SUBWORD	6
	SUBWORD	7
	SUBWORD	8
	SUBWORD	9
	SUBWORD	10
	SUBWORD	11
	sbbq	%rax, %rax		/* all ones when a < b */
	movq	0(%rcx), %r8
	andq	%rax, %r8
	movq	8(%rcx), %r9
	andq	%rax, %r9
	movq	16(%rcx), %r10
	andq	%rax, %r10
	movq	24(%rcx), %r11
	andq	%rax, %r11
	movq	32(%rcx), %rdx
	andq	%rax, %rdx
	movq	40(%rcx), %rcx
	andq	%rax, %rcx
	addq	%r8, 48(%rdi)
	adcq	%r9, 56(%rdi)
	adcq	%r10, 64(%rdi)
	adcq	%r11, 72(%rdi)
	adcq	%rdx, 80(%rdi)
	adcq	%rcx, 88(%rdi)
	ret
	.cfi_endproc
	.size	mont_sub_768_x86, .-mont_sub_768_x86

/* Squaring: the multiplication with b = a (see the top). */
	.globl	mont_sqr_384_x86
	.hidden	mont_sqr_384_x86
	.type	mont_sqr_384_x86, @function
	.p2align 4
mont_sqr_384_x86:
	.cfi_startproc
	movq	%rcx, %r8
	movq	%rdx, %rcx
	movq	%rsi, %rdx
	jmp	mont_mul_384_x86
	.cfi_endproc
	.size	mont_sqr_384_x86, .-mont_sqr_384_x86

/*
 * ret = a + b mod m. The sum s goes to ret first; s - m is computed in
 * registers and, when it borrows (s < m), s is taken back from ret with
 * cmov. Saves six registers, so nothing is pushed.
 */
	.globl	mont_add_384_x86
	.hidden	mont_add_384_x86
	.type	mont_add_384_x86, @function
	.p2align 4
mont_add_384_x86:
	.cfi_startproc
	movq	0(%rsi), %r8
	addq	0(%rdx), %r8
	movq	8(%rsi), %r9
	adcq	8(%rdx), %r9
	movq	16(%rsi), %r10
	adcq	16(%rdx), %r10
	movq	24(%rsi), %r11
	adcq	24(%rdx), %r11
	movq	32(%rsi), %rax
	adcq	32(%rdx), %rax
	movq	40(%rsi), %rsi
	adcq	40(%rdx), %rsi
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	movq	%rax, 32(%rdi)
	movq	%rsi, 40(%rdi)
	subq	0(%rcx), %r8
	sbbq	8(%rcx), %r9
	sbbq	16(%rcx), %r10
	sbbq	24(%rcx), %r11
	sbbq	32(%rcx), %rax
	sbbq	40(%rcx), %rsi
	cmovcq	0(%rdi), %r8
	cmovcq	8(%rdi), %r9
	cmovcq	16(%rdi), %r10
	cmovcq	24(%rdi), %r11
	cmovcq	32(%rdi), %rax
	cmovcq	40(%rdi), %rsi
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	movq	%rax, 32(%rdi)
	movq	%rsi, 40(%rdi)
	ret
	.cfi_endproc
	.size	mont_add_384_x86, .-mont_add_384_x86

/*
 * ret = a - b mod m: the difference d goes to ret; d + m is computed in
 * registers and, when a - b did not borrow, d is taken back from ret.
 */
	.globl	mont_sub_384_x86
	.hidden	mont_sub_384_x86
	.type	mont_sub_384_x86, @function
	.p2align 4
mont_sub_384_x86:
	.cfi_startproc
	movq	0(%rsi), %r8
	subq	0(%rdx), %r8
	movq	8(%rsi), %r9
	sbbq	8(%rdx), %r9
	movq	16(%rsi), %r10
	sbbq	16(%rdx), %r10
	movq	24(%rsi), %r11
	sbbq	24(%rdx), %r11
	movq	32(%rsi), %rax
	sbbq	32(%rdx), %rax
	movq	40(%rsi), %rsi
	sbbq	40(%rdx), %rsi
	sbbq	%rdx, %rdx		/* all ones when a < b */
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	movq	%rax, 32(%rdi)
	movq	%rsi, 40(%rdi)
	addq	0(%rcx), %r8
	adcq	8(%rcx), %r9
	adcq	16(%rcx), %r10
	adcq	24(%rcx), %r11
	adcq	32(%rcx), %rax
	adcq	40(%rcx), %rsi
	testq	%rdx, %rdx
	cmovzq	0(%rdi), %r8
	cmovzq	8(%rdi), %r9
	cmovzq	16(%rdi), %r10
	cmovzq	24(%rdi), %r11
	cmovzq	32(%rdi), %rax
	cmovzq	40(%rdi), %rsi
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	movq	%rax, 32(%rdi)
	movq	%rsi, 40(%rdi)
	ret
	.cfi_endproc
	.size	mont_sub_384_x86, .-mont_sub_384_x86

/* ---------------------------------------------------------------- 4 limbs */

/* As MULROW6 and REDROW6 on a ring of five registers. */
.macro MULROW4 A, T0, T1, T2, T3, T4
	xorl	%eax, %eax
	mulxq	0(\A), %rax, %r14
	adoxq	%rax, \T0
	adcxq	%r14, \T1
	mulxq	8(\A), %rax, %r14
	adoxq	%rax, \T1
	adcxq	%r14, \T2
	mulxq	16(\A), %rax, %r14
	adoxq	%rax, \T2
	adcxq	%r14, \T3
	mulxq	24(\A), %rax, %r14
	adoxq	%rax, \T3
	adcxq	%r14, \T4
	adoxq	%r8, \T4
.endm

.macro REDROW4 M, T0, T1, T2, T3, T4
	movq	\T0, %rdx
	imulq	%r15, %rdx
	xorl	%eax, %eax
	mulxq	0(\M), %rax, %r14
	adcxq	%rax, \T0
	adoxq	%r14, \T1
	mulxq	8(\M), %rax, %r14
	adcxq	%rax, \T1
	adoxq	%r14, \T2
	mulxq	16(\M), %rax, %r14
	adcxq	%rax, \T2
	adoxq	%r14, \T3
	mulxq	24(\M), %rax, %r14
	adcxq	%rax, \T3
	adoxq	%r14, \T4
	adcxq	\T0, \T4
.endm

/*
 * Registers in mont_mul_256_x86: rdi ret, rsi a, rcx b, r9 m, r15 inv,
 * r8 zero, rdx multiplier, rax/r14 product halves, ring rbx rbp r10 r11 r12.
 */
	.globl	mont_mul_256_x86
	.hidden	mont_mul_256_x86
	.type	mont_mul_256_x86, @function
	.p2align 4
mont_mul_256_x86:
	.cfi_startproc
	PUSH	%rbx
	PUSH	%rbp
	PUSH	%r12
	PUSH	%r14
	PUSH	%r15
	movq	%r8, %r15
	movq	%rcx, %r9
	movq	%rdx, %rcx
	xorl	%r8d, %r8d

	movq	0(%rcx), %rdx
	mulxq	0(%rsi), %rbx, %rbp
	mulxq	8(%rsi), %rax, %r10
	addq	%rax, %rbp
	mulxq	16(%rsi), %rax, %r11
	adcq	%rax, %r10
	mulxq	24(%rsi), %rax, %r12
	adcq	%rax, %r11
	adcq	$0, %r12
	REDROW4	%r9, %rbx, %rbp, %r10, %r11, %r12

	movq	8(%rcx), %rdx
	MULROW4	%rsi, %rbp, %r10, %r11, %r12, %rbx
	REDROW4	%r9, %rbp, %r10, %r11, %r12, %rbx

	movq	16(%rcx), %rdx
	MULROW4	%rsi, %r10, %r11, %r12, %rbx, %rbp
	REDROW4	%r9, %r10, %r11, %r12, %rbx, %rbp

	movq	24(%rcx), %rdx
	MULROW4	%rsi, %r11, %r12, %rbx, %rbp, %r10
	REDROW4	%r9, %r11, %r12, %rbx, %rbp, %r10

	/* The result is in r12 rbx rbp r10: subtract m unless it borrows. */
	movq	%r12, %rax
	subq	0(%r9), %rax
	movq	%rbx, %rdx
	sbbq	8(%r9), %rdx
	movq	%rbp, %rsi
	sbbq	16(%r9), %rsi
	movq	%r10, %r8
	sbbq	24(%r9), %r8
	cmovcq	%r12, %rax
	cmovcq	%rbx, %rdx
	cmovcq	%rbp, %rsi
	cmovcq	%r10, %r8
	movq	%rax, 0(%rdi)
	movq	%rdx, 8(%rdi)
	movq	%rsi, 16(%rdi)
	movq	%r8, 24(%rdi)

	POP	%r15
	POP	%r14
	POP	%r12
	POP	%rbp
	POP	%rbx
	ret
	.cfi_endproc
	.size	mont_mul_256_x86, .-mont_mul_256_x86

	.globl	mont_sqr_256_x86
	.hidden	mont_sqr_256_x86
	.type	mont_sqr_256_x86, @function
	.p2align 4
mont_sqr_256_x86:
	.cfi_startproc
	movq	%rcx, %r8
	movq	%rdx, %rcx
	movq	%rsi, %rdx
	jmp	mont_mul_256_x86
	.cfi_endproc
	.size	mont_sqr_256_x86, .-mont_sqr_256_x86

/* As mont_add_384_x86 and mont_sub_384_x86 on four limbs. */
	.globl	mont_add_256_x86
	.hidden	mont_add_256_x86
	.type	mont_add_256_x86, @function
	.p2align 4
mont_add_256_x86:
	.cfi_startproc
	movq	0(%rsi), %r8
	addq	0(%rdx), %r8
	movq	8(%rsi), %r9
	adcq	8(%rdx), %r9
	movq	16(%rsi), %r10
	adcq	16(%rdx), %r10
	movq	24(%rsi), %r11
	adcq	24(%rdx), %r11
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	subq	0(%rcx), %r8
	sbbq	8(%rcx), %r9
	sbbq	16(%rcx), %r10
	sbbq	24(%rcx), %r11
	cmovcq	0(%rdi), %r8
	cmovcq	8(%rdi), %r9
	cmovcq	16(%rdi), %r10
	cmovcq	24(%rdi), %r11
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	ret
	.cfi_endproc
	.size	mont_add_256_x86, .-mont_add_256_x86

	.globl	mont_sub_256_x86
	.hidden	mont_sub_256_x86
	.type	mont_sub_256_x86, @function
	.p2align 4
mont_sub_256_x86:
	.cfi_startproc
	movq	0(%rsi), %r8
	subq	0(%rdx), %r8
	movq	8(%rsi), %r9
	sbbq	8(%rdx), %r9
	movq	16(%rsi), %r10
	sbbq	16(%rdx), %r10
	movq	24(%rsi), %r11
	sbbq	24(%rdx), %r11
	sbbq	%rdx, %rdx		/* all ones when a < b */
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	addq	0(%rcx), %r8
	adcq	8(%rcx), %r9
	adcq	16(%rcx), %r10
	adcq	24(%rcx), %r11
	testq	%rdx, %rdx
	cmovzq	0(%rdi), %r8
	cmovzq	8(%rdi), %r9
	cmovzq	16(%rdi), %r10
	cmovzq	24(%rdi), %r11
	movq	%r8, 0(%rdi)
	movq	%r9, 8(%rdi)
	movq	%r10, 16(%rdi)
	movq	%r11, 24(%rdi)
	ret
	.cfi_endproc
	.size	mont_sub_256_x86, .-mont_sub_256_x86

	.section .note.GNU-stack,"",@progbits
#endif
