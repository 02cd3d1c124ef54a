package agenthome

import "syscall"

const nonblock = syscall.O_NONBLOCK
