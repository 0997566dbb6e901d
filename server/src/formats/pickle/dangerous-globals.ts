/**
 * Globals a model pickle must never name: callables that run commands, evaluate code, import
 * modules by name, load other pickles, open files or sockets. One of them makes the file
 * `unsafe-pickle` (docs/rules/unsafe-pickle.md lists them with these reasons).
 *
 * Sources: picklescan's `_unsafe_globals` (mmaitre314/picklescan, src/picklescan/scanner.py) and
 * modelscan's `unsafe_globals` settings (protectai/modelscan, modelscan/settings.py), widened
 * where this linter's own analysis found more (numpy.load, io.open, pkgutil, cloudpickle, ...).
 * A module entry covers the module and every submodule (`os` covers `os.path.join`).
 */

/** Whole modules (and their submodules), with why. */
export const DANGEROUS_MODULES: ReadonlyMap<string, string> = new Map([
  ['os', 'runs commands (os.system, os.popen, os.exec*), writes and removes files'],
  ['posix', "os's implementation on Linux and macOS (posix.system is what os.system pickles as)"],
  ['nt', "os's implementation on Windows"],
  ['subprocess', 'runs commands'],
  ['commands', "Python 2's subprocess"],
  ['_posixsubprocess', "subprocess's process launcher"],
  ['_winapi', 'Windows process and file calls (CreateProcess)'],
  ['pty', 'pty.spawn runs commands'],
  ['sys', 'the interpreter itself: sys.modules reaches every loaded module, sys.exit stops the loader'],
  ['shutil', 'copies, moves and deletes files and trees (shutil.rmtree)'],
  ['tempfile', 'creates files and directories on the loading machine; no model needs one'],
  ['importlib', 'imports any module by name'],
  ['pkgutil', 'pkgutil.resolve_name imports any module and returns any attribute'],
  ['zipimport', 'imports modules from a zip archive'],
  ['runpy', 'runs a module or a script'],
  ['code', 'an interactive interpreter: runs source code'],
  ['codeop', 'compiles source code'],
  ['marshal', 'loads code objects'],
  ['pickle', 'loads another pickle, unchecked'],
  ['_pickle', "pickle's C implementation"],
  ['cPickle', "Python 2's pickle"],
  ['dill', 'loads pickles that carry code'],
  ['cloudpickle', 'rebuilds functions from bytecode'],
  // Vendored copies of cloudpickle (a SHAP explainer pickled with numba's, met in a public repository).
  ['numba.cloudpickle', 'rebuilds functions from bytecode (numba\'s copy of cloudpickle)'],
  ['joblib.externals.cloudpickle', 'rebuilds functions from bytecode (joblib\'s copy of cloudpickle)'],
  ['srsly.cloudpickle', 'rebuilds functions from bytecode (spaCy\'s copy of cloudpickle)'],
  ['numba.core.serialize', 'rebuilds numba-compiled functions from bytecode'],
  ['shelve', 'opens a pickle database'],
  ['ctypes', 'loads native libraries and calls C functions'],
  ['_ctypes', "ctypes's implementation"],
  ['socket', 'opens network connections'],
  ['ssl', 'opens network connections (ssl.get_server_certificate leaks data by DNS)'],
  ['socketserver', 'serves on the network'],
  ['asyncio', 'runs commands (create_subprocess_shell) and opens connections'],
  ['multiprocessing', 'starts processes'],
  ['webbrowser', 'opens a URL in the browser'],
  ['urllib', 'fetches URLs'],
  ['urllib2', "Python 2's urllib.request"],
  ['urllib3', 'fetches URLs'],
  ['http', 'HTTP client and server'],
  ['httplib', "Python 2's http.client"],
  ['requests', 'fetches URLs'],
  ['httpx', 'fetches URLs'],
  ['aiohttp', 'fetches URLs'],
  ['ftplib', 'opens FTP connections'],
  ['smtplib', 'sends e-mail'],
  ['telnetlib', 'opens telnet connections'],
  ['xmlrpc', 'calls remote procedures'],
  ['bdb', 'the debugger framework: runs code (bdb.Bdb.run)'],
  ['pdb', 'the debugger: runs code, stops the loader at a prompt'],
  ['timeit', 'timeit.timeit runs source code'],
  ['profile', 'profile.run runs source code'],
  ['cProfile', 'cProfile.run runs source code'],
  ['trace', 'Trace.run runs source code'],
  ['doctest', 'runs the examples in a docstring'],
  ['pydoc', 'pydoc.locate imports any module; pydoc.pipepager runs a command'],
  ['idlelib', "IDLE's interpreter runs source code"],
  ['lib2to3', 'Grammar.loads loads a pickle'],
  ['distutils', 'spawns commands, writes files'],
  ['setuptools', 'runs setup scripts'],
  ['venv', 'creates environments and runs pip'],
  ['ensurepip', 'runs pip'],
  ['pip', 'installs packages (runs their setup code)'],
  ['numpy.testing._private.utils', 'runstring is exec'],
  ['numpy.f2py', 'several functions call eval on strings'],
  ['numpy.distutils', 'exec_command runs commands'],
  ['numpy.ctypeslib', 'load_library loads native libraries'],
  ['__main__', 'resolves in whatever script loads the file: a notebook that ran `from os import system` makes `__main__.system` os.system; no library class lives there'],
]);

/** Single callables in otherwise harmless modules, with why. */
export const DANGEROUS_NAMES: ReadonlyMap<string, string> = new Map([
  ['builtins.eval', 'evaluates a string as Python'],
  ['builtins.exec', 'runs a string as Python'],
  ['builtins.execfile', "Python 2's exec of a file"],
  ['builtins.compile', 'compiles source into code objects'],
  ['builtins.open', 'opens (and creates or truncates) files'],
  ['builtins.getattr', 'reaches any attribute: getattr(module, "system")'],
  ['builtins.setattr', 'changes any attribute of any object the pickle reaches'],
  ['builtins.delattr', 'removes attributes of objects the pickle reaches'],
  ['builtins.__import__', 'imports any module by name'],
  ['builtins.breakpoint', 'starts the debugger'],
  ['builtins.input', 'blocks the loader waiting on a prompt'],
  ['builtins.apply', "Python 2's call-anything"],
  ['builtins.globals', "the loader's globals, to read and change"],
  ['builtins.locals', "the loader's locals"],
  ['builtins.vars', 'the attribute dict of any object'],
  ['builtins.exit', 'ends the process'],
  ['builtins.quit', 'ends the process'],
  ['builtins.help', 'starts the interactive help (a pager)'],
  ['io.open', 'builtins.open'],
  ['io.open_code', 'opens files'],
  ['io.FileIO', 'opens (and creates or truncates) files'],
  ['_io.open', 'builtins.open'],
  ['_io.open_code', 'opens files'],
  ['_io.FileIO', 'opens (and creates or truncates) files'],
  ['types.FunctionType', 'builds a function from a code object'],
  ['types.LambdaType', 'builds a function from a code object'],
  ['types.CodeType', 'builds a code object from bytecode'],
  ['types.MethodType', 'binds a function to any object'],
  ['types.new_class', 'runs a class body callback'],
  ['operator.attrgetter', 'reaches any attribute: attrgetter("system")(os)'],
  ['operator.methodcaller', 'calls any method by name'],
  ['operator.itemgetter', 'picklescan lists it: reads items of any mapping, such as a module dict'],
  ['_operator.attrgetter', 'operator.attrgetter'],
  ['_operator.methodcaller', 'operator.methodcaller'],
  ['_operator.itemgetter', 'operator.itemgetter'],
  // functools.partial itself is a checked callable (allowlist.ts, checked-callables.ts): picklescan
  // lists it because it binds arguments to any callable, partial(os.system, "..."); the VM checks
  // what it binds and when it is called.
  ['functools.partialmethod', 'binds arguments to any method'],
  ['numpy.load', 'loads another file, pickles included with allow_pickle=True'],
  ['numpy.lib.npyio.load', 'numpy.load'],
  ['numpy.fromfile', 'reads any file'],
  ['numpy.loadtxt', 'reads any file'],
  ['numpy.genfromtxt', 'reads any file'],
  ['numpy.save', 'writes files'],
  ['numpy.savetxt', 'writes files'],
  ['joblib.load', 'loads another pickle, unchecked'],
  ['joblib.numpy_pickle.load', 'joblib.load'],
  ['sklearn.externals.joblib.load', 'joblib.load'],
  ['sklearn.externals.joblib.numpy_pickle.load', 'joblib.load'],
  ['pandas.read_pickle', 'loads another pickle, unchecked'],
  ['pandas.io.pickle.read_pickle', 'pandas.read_pickle'],
  ['torch.load', 'loads another pickle, unchecked'],
  ['torch.serialization.load', 'torch.load'],
]);

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const DOTTED = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/** Python 2 pickles name builtins under `__builtin__` (mapped for protocols < 3, not after). */
function canonicalModule(module: string): string {
  if (module === '__builtin__') return 'builtins';
  return module;
}

/**
 * Why `module.name` is dangerous, or undefined when it is not known to be; for names the allowlist
 * (./allowlist) refused (see ./tiers). Names Python would not
 * resolve as one plain attribute of one module count as dangerous: a dotted name (protocol 4
 * qualname, resolved attribute by attribute, e.g. `sklearn.base.BaseEstimator.__init__` or
 * `sys.modules`-style walks to a builtin) or anything that is not an identifier.
 */
export function dangerReason(module: string, name: string): string | undefined {
  if (!MODULE.test(module)) return 'the module name is not a Python module name';
  if (!IDENT.test(name)) {
    return DOTTED.test(name)
      ? 'a dotted name: Python walks it attribute by attribute, which reaches things no class name shows'
      : 'not a Python identifier';
  }
  const m = canonicalModule(module);
  const exact = DANGEROUS_NAMES.get(`${m}.${name}`);
  if (exact) return exact;
  // Asked only for names the allowlist refused, so this is every builtin but the data types.
  if (m === 'builtins') return "one of the interpreter's own functions, not a data type; a model file has no use for it";
  for (let prefix = m; ; ) {
    const reason = DANGEROUS_MODULES.get(prefix);
    if (reason) return reason;
    const dot = prefix.lastIndexOf('.');
    if (dot < 0) return undefined;
    prefix = prefix.slice(0, dot);
  }
}
