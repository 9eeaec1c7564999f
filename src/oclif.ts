/** oclif as bin/run.js starts it: from the bundle, so that commands share this one copy. */
export {execute} from '@oclif/core'
