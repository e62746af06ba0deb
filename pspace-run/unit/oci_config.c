// SPDX-License-Identifier: GPL-2.0
/*
 * The OCI front end's config.json reader (oci-config.c): a good bundle
 * loads into the spec it says, and each bad one is refused with status
 * 125 and a message naming the field, as the engines show it to users.
 * JSON is written with ' for " to keep the table readable.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pspace-run.h"
#include "../oci.h"
#include "unit.h"

#define VERSION_ "'ociVersion':'1.0.2'"
#define ROOT_ "'root':{'path':'rootfs'}"
#define PROC_ "'process':{'args':['/bin/sh'],'cwd':'/'}"
#define NS_ "'linux':{'namespaces':[{'type':'pid'},{'type':'mount'},{'type':'uts'}]}"
#define BASE_ VERSION_ "," ROOT_ "," PROC_
/* A config of the base's with @x added at the top level. */
#define WITH(x) "{" BASE_ "," NS_ "," x "}"
/* A config whose linux object is @x (namespaces included by the caller). */
#define LINUX(x) "{" BASE_ ",'linux':{'namespaces':[{'type':'pid'},{'type':'mount'}]," x "}}"
#define PROCESS(x) "{" VERSION_ "," ROOT_ "," NS_ ",'process':{" x "}}"

struct bundle_case {
	const char *json;
	const char *expect;	/* NULL: it loads; else a substring of the error */
};

static const struct bundle_case bundle_cases[] = {
	{ "{" BASE_ "," NS_ "}", NULL },
	{ "{" BASE_ "}", NULL },	/* no linux object: a pspace anyway */
	{ WITH("'hostname':'box'"), NULL },
	{ WITH("'mounts':[{'destination':'/proc','type':'proc','source':'proc'}]"), NULL },
	{ WITH("'mounts':[{'destination':'/data','type':'bind','source':'/tmp','options':['rbind','ro']}]"), NULL },
	{ WITH("'mounts':[{'destination':'/t','type':'tmpfs','options':['nosuid','size=1m']}]"), NULL },
	{ LINUX("'maskedPaths':['/proc/kcore'],'readonlyPaths':['/proc/sys']"), NULL },
	{ LINUX("'cgroupsPath':'/pspace/test'"), NULL },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','env':['A=1','B='],'rlimits':[{'type':'RLIMIT_NOFILE','soft':10,'hard':20}]"), NULL },

	/* Not a config at all. */
	{ "", "not valid JSON" },
	{ "{", "not valid JSON" },
	{ "[]", "expected a JSON object, not an array" },
	{ "{} {}", "text after the document" },
	{ "{}", "ociVersion: missing" },
	{ "{'ociVersion':2}", "ociVersion: expected a string, not an integer" },
	{ "{'ociVersion':'2.0.0'}", "ociVersion: '2.0.0' is not 1.x" },
	/* root */
	{ "{" VERSION_ "}", "root: missing" },
	{ "{" VERSION_ ",'root':{}}", "root.path: missing" },
	{ "{" VERSION_ ",'root':{'path':''}}", "root.path: empty" },
	{ "{" VERSION_ ",'root':{'path':'nothere'}}", "root.path: " },
	{ "{" VERSION_ ",'root':{'path':'config.json'}}", "not a directory" },
	{ "{" VERSION_ ",'root':{'path':'..'}}", "leads out of the bundle" },
	{ "{" VERSION_ ",'root':{'path':'/'}}", "is the host's root" },
	{ "{" VERSION_ ",'root':{'path':'rootfs','readonly':'yes'}}", "root.readonly: expected a boolean" },
	/* process */
	{ "{" VERSION_ "," ROOT_ "}", "process: missing" },
	{ PROCESS("'cwd':'/'"), "process.args" },
	{ PROCESS("'args':[],'cwd':'/'"), "process.args: empty: no command to run" },
	{ PROCESS("'args':[''],'cwd':'/'"), "process.args[0]: empty" },
	{ PROCESS("'args':['/bin/sh',3],'cwd':'/'"), "expected a string, not an integer" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'tmp'"), "'tmp' is not an absolute path" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','env':['NOEQUALS']"), "'NOEQUALS' is not NAME=VALUE" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','rlimits':[{'type':'RLIMIT_FLY','soft':1,'hard':1}]"), "unknown type RLIMIT_FLY" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','rlimits':[{'type':'RLIMIT_NOFILE','soft':2,'hard':1}]"), "soft is above hard" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','rlimits':[3]"), "expected an object" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','user':{'uid':-1,'gid':0}"), "process.user" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','user':{'uid':0,'gid':0,'username':'x'}"), "not supported by pspace-run" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','apparmorProfile':'x'"), "apparmorProfile: not supported by pspace-run" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','selinuxLabel':'x'"), "selinuxLabel: not supported by pspace-run" },
	{ PROCESS("'args':['/bin/sh'],'cwd':'/','terminal':'yes'"), "process.terminal: expected a boolean" },
	/* hostname */
	{ WITH("'hostname':'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"), "hostname: longer than 64 characters" },
	{ "{" BASE_ ",'hostname':'box','linux':{'namespaces':[{'type':'pid'},{'type':'mount'}]}}", "hostname: set without a uts namespace" },
	/* mounts */
	{ WITH("'mounts':{}"), "mounts: expected an array, not an object" },
	{ WITH("'mounts':[3]"), "mounts[0]: expected an object" },
	{ WITH("'mounts':[{'type':'tmpfs'}]"), "mounts[0].destination: missing" },
	{ WITH("'mounts':[{'destination':'rel','type':'tmpfs'}]"), "'rel' is not an absolute path" },
	{ WITH("'mounts':[{'destination':'/d'}]"), "mounts[0]: neither a type nor a bind option" },
	{ WITH("'mounts':[{'destination':'/d','type':'bind'}]"), "a bind mount without a source" },
	{ WITH("'mounts':[{'destination':'/d','type':'bind','source':'rel'}]"), "bind source 'rel' is not an absolute path" },
	{ WITH("'mounts':[{'destination':'/d','type':'tmpfs','options':['idmap']}]"), "option 'idmap' is not supported by pspace-run" },
	{ WITH("'mounts':[{'destination':'/d','type':'tmpfs','uidMappings':[{'containerID':0,'hostID':1,'size':1}]}]"), "uidMappings: not supported" },
	/* linux */
	{ "{" BASE_ ",'linux':[]}", "linux: expected an object, not an array" },
	{ "{" BASE_ ",'linux':{'namespaces':[{'type':'fly'}]}}", "unknown namespace type 'fly'" },
	{ "{" BASE_ ",'linux':{'namespaces':[{}]}}", "linux.namespaces[0].type: missing" },
	{ "{" BASE_ ",'linux':{'namespaces':[{'type':'network','path':'rel'}]}}", "path 'rel' is not absolute" },
	{ "{" BASE_ ",'linux':{'namespaces':[{'type':'mount','path':'/proc/1/ns/mnt'}]}}", "mount with a path: not supported" },
	{ "{" BASE_ ",'linux':{'namespaces':[{'type':'time'}]}}", "time: not supported by pspace-run" },
	{ LINUX("'maskedPaths':['proc/kcore']"), "linux.maskedPaths: 'proc/kcore' is not absolute" },
	{ LINUX("'readonlyPaths':['proc/sys']"), "linux.readonlyPaths: 'proc/sys' is not absolute" },
	{ LINUX("'sysctl':{'net.ipv4.ip_forward':1}"), "linux.sysctl: net.ipv4.ip_forward: expected a string" },
	{ LINUX("'sysctl':{'../x':'1'}"), "linux.sysctl: '../x' is not a sysctl name" },
	{ LINUX("'sysctl':{'kernel.panic':'1'}"), "'kernel.panic' is not in a namespace of the container's own" },
	{ LINUX("'sysctl':{'net.ipv4.ip_forward':'1'}"), "is not in a namespace of the container's own" },
	{ LINUX("'cgroupsPath':'/a/../b'"), "linux.cgroupsPath: '/a/../b' has a '..'" },
	{ LINUX("'mountLabel':'x'"), "linux.mountLabel: not supported by pspace-run" },
	{ LINUX("'intelRdt':{'closID':'x'}"), "linux.intelRdt: not supported by pspace-run" },
	{ LINUX("'resources':{'unified':{'../x':'1'}}"), "linux.resources.unified" },
	{ LINUX("'seccomp':{'defaultAction':'SCMP_ACT_FLY'}"), "action SCMP_ACT_FLY is not supported" },
	{ LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','architectures':['x86']}"), "'x86' is not SCMP_ARCH_*" },
	{ LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','flags':['SECCOMP_FILTER_FLAG_FLY']}"), "is not supported by pspace-run" },
	{ LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':[{'names':['getcwd'],'action':'SCMP_ACT_ERRNO','args':[{'index':0,'value':1,'op':'SCMP_CMP_FLY'}]}]}"), "unknown op SCMP_CMP_FLY" },
	{ LINUX("'seccomp':{'defaultAction':'SCMP_ACT_ALLOW','syscalls':[3]}"), "expected an object" },
	/* hooks */
	{ WITH("'hooks':{'prestart':[{'path':'rel'}]}"), "path 'rel' is not absolute" },
	{ WITH("'hooks':{'prestart':[3]}"), "expected an object" },
};

static void load(void *arg)
{
	const struct oci_spec *s = oci_load_spec(arg);

	printf("loaded root=%s args0=%s\n", s->root, s->process.args ? s->process.args[0] : "-");
}

/* Write @json (' for ") as BUNDLE/config.json, with BUNDLE/rootfs. */
static void make_bundle(char *dir, size_t size, int n, const char *json)
{
	char path[PATH_MAX + 32];
	FILE *f;
	const char *c;

	snprintf(dir, size, "%s/bundle%d", scratch_dir(), n);
	snprintf(path, sizeof(path), "%s/rootfs", dir);
	if ((mkdir(dir, 0700) < 0 || mkdir(path, 0755) < 0)) {
		perror(dir);
		exit(2);
	}
	snprintf(path, sizeof(path), "%s/config.json", dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	for (c = json; *c; c++)
		fputc(*c == '\'' ? '"' : *c, f);
	fclose(f);
}

void unit_oci_config(void)
{
	char dir[PATH_MAX];
	struct outcome o;
	size_t i;

	for (i = 0; i < sizeof(bundle_cases) / sizeof(bundle_cases[0]); i++) {
		const struct bundle_case *c = &bundle_cases[i];
		bool good;

		make_bundle(dir, sizeof(dir), (int)i, c->json);
		run_child(load, dir, &o);
		if (!c->expect)
			good = o.status == 0 && strstr(o.out, "loaded root=") &&
			       strstr(o.out, "/rootfs args0=/bin/sh");
		else
			good = o.status == 125 && strstr(o.err, c->expect) && !o.out[0];
		if (!ok(good, "config.json %zu %s%s", i, c->expect ? "refused: " : "loads",
			c->expect ? c->expect : "")) {
			diag("%s", c->json);
			diag("exit status %d", o.status);
			diag("stdout: %s", o.out);
			diag("stderr: %s", o.err);
		}
	}
	/* An unknown capability is left out with a warning, as runc does. */
	make_bundle(dir, sizeof(dir), (int)i, PROCESS("'args':['/bin/sh'],'cwd':'/','capabilities':{'bounding':['CAP_FLY']}"));
	run_child(load, dir, &o);
	ok(o.status == 0 && strstr(o.err, "unknown capability CAP_FLY: left out"),
	   "config.json: an unknown capability is left out with a warning");
	/* A fifo as config.json: refused at once, not waited on. */
	snprintf(dir, sizeof(dir), "%s/fifo-bundle", scratch_dir());
	{
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/rootfs", dir);
		mkdir(dir, 0700);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/config.json", dir);
		mkfifo(path, 0600);
	}
	run_child(load, dir, &o);
	if (!ok(o.status == 125 && strstr(o.err, "config.json: not a regular file"),
		"config.json as a fifo is refused at once"))
		diag("status %d, err %s", o.status, o.err);
	run_child(load, "/nonexistent/bundle", &o);
	ok(o.status == 125 && strstr(o.err, "bundle /nonexistent/bundle"),
	   "a missing bundle is named");
}
