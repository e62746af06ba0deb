// SPDX-License-Identifier: GPL-2.0
/* The unit tier: every group, in order; see unit.h. */
#include <unistd.h>

#include "unit.h"

int main(void)
{
	pid_t self = getpid();

	if (unit_begin() < 0)
		return 2;
	unit_options();
	unit_signals();
	unit_mounts();
	unit_env_file();
	unit_oci_config();
	unit_inroot();
	unit_failure();
	unit_escapes();
	if (getpid() != self)
		_exit(3);	/* a child that came back */
	return unit_end();
}
