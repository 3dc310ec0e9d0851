// The part of fs-native-extensions we use; the package ships no types.
declare module "fs-native-extensions" {
  /** An exclusive lock on the whole file, without waiting: false when another holds it. */
  export function tryLock(fd: number): boolean;
}
