/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host agent's bytes, embedded at build time (agent_deploy.c uploads
 * them).  AGENT_BIN is the path of the built clawssh-agent.
 */
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
	.section .note.GNU-stack, "", @progbits
