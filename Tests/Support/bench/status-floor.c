/* The floor for `pingcli status --all` read from the status index: only the system calls every
 * profile's line needs to be vouched for, on one thread, and nothing else. It lists the profiles'
 * directory and, for each profile, makes the four `fstatat`s the index's check makes (the profile's
 * directory, its profile.json and token cache, its generation record), relative to the two
 * directories held open; no file is read, no line made. Built by `make bench` and timed beside
 * `status --all`, `status --all --json` and `token --raw` (docs/performance.md).
 *
 *   status-floor PROFILES_DIR GENERATIONS_DIR   prints how many profiles it looked at
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    DIR *list = opendir(argv[1]);
    int generations = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!list || generations < 0) return 1;
    int profiles = dirfd(list), count = 0;
    struct dirent *entry;
    struct stat info;
    char path[512];
    while ((entry = readdir(list))) {
        if (entry->d_name[0] == '.') continue;
        int failed = fstatat(profiles, entry->d_name, &info, AT_SYMLINK_NOFOLLOW);
        snprintf(path, sizeof path, "%s/profile.json", entry->d_name);
        failed |= fstatat(profiles, path, &info, AT_SYMLINK_NOFOLLOW);
        snprintf(path, sizeof path, "%s/tokens.enc", entry->d_name);
        failed |= fstatat(profiles, path, &info, AT_SYMLINK_NOFOLLOW);
        failed |= fstatat(generations, entry->d_name, &info, AT_SYMLINK_NOFOLLOW);
        count += failed == 0;
    }
    printf("%d\n", count);
    return 0;
}
