/*
 * What the unit tests share for their scratch directories.
 */
#ifndef CLAW_TEST_TMPDIR_H
#define CLAW_TEST_TMPDIR_H

/*
 * Remove dir and everything below it, never following a symbolic link.
 * Returns 0, or -1 if something could not be removed.
 */
int	tmpdir_remove(const char *dir);

#endif /* CLAW_TEST_TMPDIR_H */
