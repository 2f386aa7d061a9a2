// Linked into every build's glue with --post-js (bindings/CMakeLists.txt): Embind's registrations
// at start-up without generating code (issue 30: init() <= 20 ms).
//
// Emscripten 3.1.6's Embind writes JavaScript source for each bound function and method as it
// registers them (craftInvokerFunction: the argument conversions unrolled, compiled by
// new Function), and names every helper function through new Function too (createNamedFunction):
// for the ~50 functions and methods bound here, most of which a program never calls. Measured
// idle on the 2-core AMD EPYC (BENCHMARKS.md, issue 30, session 18): init() 20.93 -> 19.22 ms,
// medians of 21 fresh processes.
// - An invoker is now written on its function's first call, then reused: the same generated code
//   runs, one wrapper call later; a binding never called costs nothing.
// - createNamedFunction gives its wrapper the name by defineProperty instead of by source text:
//   the same function (it calls body with this and the arguments; the glue is an ES module, so
//   strict mode either way), named as before for stack traces.
// This file runs after the glue's own code, before the module is instantiated (instantiation is
// asynchronous: nothing has registered yet), so every registration goes through the two below.
if (typeof craftInvokerFunction != 'function' || typeof createNamedFunction != 'function' ||
    typeof makeLegalFunctionName != 'function' || typeof throwBindingError != 'function') {
  throw new Error('lazy_invokers.post.js: this Emscripten\'s Embind lacks craftInvokerFunction / createNamedFunction / throwBindingError');
}
var sfCraftInvokerNow = craftInvokerFunction;
craftInvokerFunction = function(humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc) {
  // A free function without arguments (simdArch and simdLanes, which init() calls, the byte
  // counters): the invoker Embind would write for it, as a closure. Its first call then compiles
  // no code: init() 0.4-0.8 ms less in the scalar build (the first new Function of the process).
  // argTypes: [return type, null (no `this`)].
  if (argTypes.length === 2 && argTypes[1] === null) {
    var retType = argTypes[0], returns = retType.name !== 'void';
    return function() {
      if (arguments.length !== 0) {
        throwBindingError('function ' + humanName + ' called with ' + arguments.length + ' arguments, expected 0 args!');
      }
      var rv = cppInvokerFunc(cppTargetFunc);
      if (returns) return retType.fromWireType(rv);
    };
  }
  var invoker;
  return function() {
    invoker = invoker || sfCraftInvokerNow(humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc);
    return invoker.apply(this, arguments);
  };
};
createNamedFunction = function(name, body) {
  var named = function() {
    return body.apply(this, arguments);
  };
  Object.defineProperty(named, 'name', { value: makeLegalFunctionName(name) });
  return named;
};
