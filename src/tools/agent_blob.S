/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host agent's bytes, embedded at build time (agent_deploy.c uploads
 * them), and their SHA-256 in hex, taken at build time from the same file
 * (agent_sum.h, made by sha256sum), so that naming the agent costs
 * nothing at run time.  AGENT_BIN is the path of the built clawssh-agent.
 */
#include "agent_sum.h"

	.section .rodata
	.balign 16
	.globl	agent_blob_start
	.type	agent_blob_start, @object
agent_blob_start:
	.incbin	AGENT_BIN
	.globl	agent_blob_end
	.type	agent_blob_end, @object
agent_blob_end:
	.byte	0
	.globl	agent_blob_sum
	.type	agent_blob_sum, @object
agent_blob_sum:
	.asciz	AGENT_SUM
	.section .note.GNU-stack, "", @progbits
