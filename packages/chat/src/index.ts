export * as ChatBot from "./ChatBot.js"
