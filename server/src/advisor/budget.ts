/**
 * The what-if advisor's budget for a reconstruction budget: twice it. The advisor runs about twenty
 * reconstructions, each on a simulated model; with less, the likelihood methods stop at rougher
 * estimates. Shared by the CLI's `--advise` and the editor's advisor job, in a module of its own
 * so that the language server's main thread can use it without bundling the advisor (and HiGHS).
 */
export const advisorBudgetMs = (budgetMs: number) => 2 * budgetMs;
